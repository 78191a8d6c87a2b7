// Counts heap allocations of a process, for the allocation benchmark (Tools/bench-allocations.sh).
// Loaded with LD_PRELOAD; every malloc, calloc, realloc and aligned allocation is counted, then
// passed to glibc. On SIGUSR2 the process appends "<program> <pid> <count>" to the file named by
// MALLOC_COUNT_FILE, so a benchmark can take the count before and after a run and divide the
// difference by the requests served (start-up and shutdown fall outside it). With
// MALLOC_COUNT_AT_EXIT set it appends the same line when the process exits.
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
extern char *program_invocation_short_name;

static atomic_ulong allocations;

void *malloc(size_t size) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_realloc(pointer, size); }
void free(void *pointer) { __libc_free(pointer); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return 12;  // ENOMEM
    *out = pointer;
    return 0;
}
void *aligned_alloc(size_t alignment, size_t size) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_memalign(alignment, size); }
void *memalign(size_t alignment, size_t size) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_memalign(alignment, size); }

// Async-signal-safe: formats with no allocation and writes once.
static void report(int signal) {
    (void)signal;
    const char *path = getenv("MALLOC_COUNT_FILE");
    if (path == NULL) return;
    char line[160];
    size_t used = 0;
    for (const char *c = program_invocation_short_name; *c && used < 64; c++) line[used++] = *c;
    char digits[24];
    unsigned long values[2] = {(unsigned long)getpid(), atomic_load(&allocations)};
    for (int v = 0; v < 2; v++) {
        line[used++] = ' ';
        int n = 0;
        unsigned long value = values[v];
        do { digits[n++] = (char)('0' + value % 10); value /= 10; } while (value > 0);
        while (n > 0) line[used++] = digits[--n];
    }
    line[used++] = '\n';
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) { ssize_t ignored = write(fd, line, used); (void)ignored; close(fd); }
}

// The count at exit too, for a process that is not signalled (the replay client).
__attribute__((destructor)) static void atExit(void) { if (getenv("MALLOC_COUNT_AT_EXIT")) report(0); }

__attribute__((constructor)) static void install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = report;
    action.sa_flags = SA_RESTART;
    sigaction(SIGUSR2, &action, NULL);
}
