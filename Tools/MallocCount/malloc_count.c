// Counts heap allocations of a process, for the allocation benchmark (Tools/bench-allocations.sh).
// Loaded with LD_PRELOAD; every malloc, calloc, realloc and aligned allocation is counted, then
// passed on to the allocator the process links (tcmalloc for PushBus's own executables, `Allocator`).
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

extern char *program_invocation_short_name;

static atomic_ulong allocations;

// The allocator the process would have used without this file (tcmalloc, which every PushBus
// executable links, or glibc's): looked up on first use. dlsym may itself allocate while it looks;
// that is served from `boot`, which is never freed.
static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static void (*next_free)(void *);
static int (*next_posix_memalign)(void **, size_t, size_t);
static void *(*next_aligned_alloc)(size_t, size_t);
static void *(*next_memalign)(size_t, size_t);
static _Alignas(16) char boot[8192];
static size_t bootUsed;
static int resolving;

static void *fromBoot(size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (bootUsed + size > sizeof boot) return NULL;
    void *pointer = boot + bootUsed;
    bootUsed += size;
    return pointer;
}

static int inBoot(const void *pointer) { return (const char *)pointer >= boot && (const char *)pointer < boot + sizeof boot; }

static void resolve(void) {
    if (next_malloc != NULL || resolving) return;
    resolving = 1;
    next_calloc = dlsym(RTLD_NEXT, "calloc");
    next_realloc = dlsym(RTLD_NEXT, "realloc");
    next_free = dlsym(RTLD_NEXT, "free");
    next_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    next_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    next_memalign = dlsym(RTLD_NEXT, "memalign");
    next_malloc = dlsym(RTLD_NEXT, "malloc");
    resolving = 0;
}

static void counted(void) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); }

void *malloc(size_t size) {
    resolve();
    if (next_malloc == NULL) return fromBoot(size);
    counted();
    return next_malloc(size);
}
void *calloc(size_t count, size_t size) {
    resolve();
    if (next_calloc == NULL || next_malloc == NULL) return fromBoot(count * size);  // boot is zeroed
    counted();
    return next_calloc(count, size);
}
void *realloc(void *pointer, size_t size) {
    resolve();
    counted();
    if (!inBoot(pointer)) return next_realloc(pointer, size);
    void *moved = next_malloc(size);
    if (moved != NULL) memcpy(moved, pointer, size < (size_t)(boot + sizeof boot - (char *)pointer) ? size : (size_t)(boot + sizeof boot - (char *)pointer));
    return moved;
}
void free(void *pointer) {
    if (pointer == NULL || inBoot(pointer)) return;
    resolve();
    next_free(pointer);
}
int posix_memalign(void **out, size_t alignment, size_t size) { resolve(); counted(); return next_posix_memalign(out, alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { resolve(); counted(); return next_aligned_alloc(alignment, size); }
void *memalign(size_t alignment, size_t size) { resolve(); counted(); return next_memalign(alignment, size); }

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
