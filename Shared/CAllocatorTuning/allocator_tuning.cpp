// tcmalloc's release rate is set through its C++ interface only (`MallocExtension`); the C one
// has no setter for it. These two wrappers are all that is written in C++.
#include "allocator_tuning.h"
#include <gperftools/malloc_extension.h>

double pushbus_tcmalloc_release_rate(void) {
    return MallocExtension::instance()->GetMemoryReleaseRate();
}

void pushbus_tcmalloc_set_release_rate(double rate) {
    MallocExtension::instance()->SetMemoryReleaseRate(rate);
}
