#ifndef PUSHBUS_ALLOCATOR_TUNING_H
#define PUSHBUS_ALLOCATOR_TUNING_H

#ifdef __cplusplus
extern "C" {
#endif

/// How fast tcmalloc hands freed memory back to the system (gperftools' release rate: 0 never,
/// 1 its default, up to 10).
double pushbus_tcmalloc_release_rate(void);
void pushbus_tcmalloc_set_release_rate(double rate);

#ifdef __cplusplus
}
#endif

#endif
