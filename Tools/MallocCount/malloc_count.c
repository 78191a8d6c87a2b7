// Counts heap allocations of a process, for the allocation benchmark (Tools/bench-allocations.sh).
// Loaded with LD_PRELOAD; every malloc, calloc, realloc, aligned allocation and C++ operator new is
// counted, then passed on to the allocator the process links (tcmalloc for PushBus's own
// executables, `Allocator`).
// On SIGUSR2 the process appends "<program> <pid> <count>" to the file named by MALLOC_COUNT_FILE,
// so a benchmark can take the count before and after a run and divide the difference by the
// requests served (start-up and shutdown fall outside it). With
// MALLOC_COUNT_AT_EXIT set it appends the same line when the process exits.
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dlfcn.h>
#include <stdint.h>

extern char *program_invocation_short_name;

static atomic_ulong allocations;

// The allocator the process would have used without this file (tcmalloc, which every PushBus
// executable links, or glibc's), looked up before anything else runs (the constructor below) or
// at the first allocation if one comes earlier. An allocation made while a thread looks them up
// (dlsym may allocate) is served from `boot`, which is never freed.
static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static void (*next_free)(void *);
static int (*next_posix_memalign)(void **, size_t, size_t);
static void *(*next_aligned_alloc)(size_t, size_t);
static void *(*next_memalign)(size_t, size_t);
static void *(*next_valloc)(size_t);
static void *(*next_pvalloc)(size_t);
static size_t (*next_usable_size)(void *);
// C++'s operator new (plain, array, nothrow, aligned): tcmalloc defines its own, which call no
// malloc, so they are counted here too. Their deletes need no wrapper.
static void *(*next_new)(size_t), *(*next_new_array)(size_t);
static void *(*next_new_nothrow)(size_t, const void *), *(*next_new_array_nothrow)(size_t, const void *);
static void *(*next_new_aligned)(size_t, size_t), *(*next_new_array_aligned)(size_t, size_t);
static atomic_int resolved;
// Initial-exec: a thread-local in the general-dynamic model is reached through __tls_get_addr,
// which may itself allocate, and so call back in here without end. Volatile: glibc declares dlsym
// a leaf (it calls nothing of this file), so the compiler would drop the store before it, yet dlsym
// allocates when it does not find a name.
#define THREAD_LOCAL __thread __attribute__((tls_model("initial-exec"))) volatile
static THREAD_LOCAL int resolving;
// Inside an operator new: an allocator whose operator new calls malloc (libstdc++'s) is counted once.
static THREAD_LOCAL int inNew;
static _Alignas(16) char boot[8192];
static atomic_size_t bootUsed;

static void *fromBoot(size_t size) {
    if (size > sizeof boot) return NULL;
    size = (size + 15) & ~(size_t)15;
    size_t start = atomic_fetch_add(&bootUsed, size);
    return start + size <= sizeof boot ? boot + start : NULL;
}

static int inBoot(const void *pointer) { return (const char *)pointer >= boot && (const char *)pointer < boot + sizeof boot; }

// 1 once the next allocator is known; 0 while this thread is looking it up.
static int resolve(void) {
    if (atomic_load_explicit(&resolved, memory_order_acquire)) return 1;
    if (resolving) return 0;
    resolving = 1;
    next_malloc = dlsym(RTLD_NEXT, "malloc");
    next_calloc = dlsym(RTLD_NEXT, "calloc");
    next_realloc = dlsym(RTLD_NEXT, "realloc");
    next_free = dlsym(RTLD_NEXT, "free");
    next_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    next_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    next_memalign = dlsym(RTLD_NEXT, "memalign");
    next_valloc = dlsym(RTLD_NEXT, "valloc");
    next_pvalloc = dlsym(RTLD_NEXT, "pvalloc");
    next_usable_size = dlsym(RTLD_NEXT, "malloc_usable_size");
    next_new = dlsym(RTLD_NEXT, "_Znwm");
    next_new_array = dlsym(RTLD_NEXT, "_Znam");
    next_new_nothrow = dlsym(RTLD_NEXT, "_ZnwmRKSt9nothrow_t");
    next_new_array_nothrow = dlsym(RTLD_NEXT, "_ZnamRKSt9nothrow_t");
    next_new_aligned = dlsym(RTLD_NEXT, "_ZnwmSt11align_val_t");
    next_new_array_aligned = dlsym(RTLD_NEXT, "_ZnamSt11align_val_t");
    resolving = 0;
    atomic_store_explicit(&resolved, 1, memory_order_release);
    return 1;
}

__attribute__((constructor(101))) static void resolveFirst(void) { resolve(); }

static void counted(void) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); }

void *malloc(size_t size) {
    if (!resolve()) return fromBoot(size);
    if (!inNew) counted();
    return next_malloc(size);
}
void *calloc(size_t count, size_t size) {
    if (!resolve()) return count != 0 && size > SIZE_MAX / count ? NULL : fromBoot(count * size);  // boot is zeroed
    counted();
    return next_calloc(count, size);
}
void *realloc(void *pointer, size_t size) {
    if (!resolve()) return NULL;
    counted();
    if (!inBoot(pointer)) return next_realloc(pointer, size);
    // A boot block's size is unknown; it lies wholly between its start and the end of `boot`.
    size_t left = (size_t)(boot + sizeof boot - (char *)pointer);
    void *moved = next_malloc(size);
    if (moved != NULL) memcpy(moved, pointer, size < left ? size : left);
    return moved;
}
void free(void *pointer) {
    if (pointer == NULL || inBoot(pointer) || !resolve()) return;
    next_free(pointer);
}
size_t malloc_usable_size(void *pointer) {
    if (pointer == NULL || inBoot(pointer) || !resolve()) return 0;
    return next_usable_size(pointer);
}
int posix_memalign(void **out, size_t alignment, size_t size) {
    if (!resolve()) return 12;  // ENOMEM
    counted();
    return next_posix_memalign(out, alignment, size);
}
#define COUNTED(call) do { if (!resolve()) return NULL; counted(); return call; } while (0)
void *aligned_alloc(size_t alignment, size_t size) { COUNTED(next_aligned_alloc(alignment, size)); }
void *memalign(size_t alignment, size_t size) { COUNTED(next_memalign(alignment, size)); }
void *valloc(size_t size) { COUNTED(next_valloc(size)); }
void *pvalloc(size_t size) { COUNTED(next_pvalloc(size)); }
#define NEW(call) do { if (!resolve()) return NULL; counted(); inNew = 1; void *made = call; inNew = 0; return made; } while (0)
void *_Znwm(size_t size) { NEW(next_new(size)); }
void *_Znam(size_t size) { NEW(next_new_array(size)); }
void *_ZnwmRKSt9nothrow_t(size_t size, const void *tag) { NEW(next_new_nothrow(size, tag)); }
void *_ZnamRKSt9nothrow_t(size_t size, const void *tag) { NEW(next_new_array_nothrow(size, tag)); }
void *_ZnwmSt11align_val_t(size_t size, size_t alignment) { NEW(next_new_aligned(size, alignment)); }
void *_ZnamSt11align_val_t(size_t size, size_t alignment) { NEW(next_new_array_aligned(size, alignment)); }

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
