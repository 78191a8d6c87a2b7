// What this machine charges for the two things every PushBus request pays at low rates, measured
// without PushBus (Tools/bench-platform.sh; docs/benchmarks.md, "The machine's floor").
// - A wake-up: a thread blocked in read() on an eventfd, woken by another thread's write(). Two
//   threads pass a token back and forth; each round trip is two wake-ups. Run with the threads free
//   to be on either CPU (as ZeroMQ's I/O thread and a service's main thread are), then with both
//   held on CPU 0, where a wake-up is a switch on one CPU and no CPU has to be woken.
// - A durable commit's sync: one 4 KB page written into a file of fixed size, then fdatasync(),
//   which is what SQLite does at each commit with synchronous=FULL in WAL mode.
// Each figure is wall time and CPU time (user + system, of this process) per operation.
// Prints one JSON object. Usage: platform-floor FILE [ROUND_TRIPS] [SYNCS]
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct clocks { double wall, cpu; };

static struct clocks now(void) {
    struct timespec wall;
    struct rusage usage;
    clock_gettime(CLOCK_MONOTONIC, &wall);
    getrusage(RUSAGE_SELF, &usage);
    double cpu = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec
        + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    return (struct clocks){ wall.tv_sec + wall.tv_nsec / 1e9, cpu };
}

// Microseconds of wall and CPU time per operation between two readings.
static struct clocks per_operation(struct clocks start, struct clocks end, long operations) {
    return (struct clocks){ (end.wall - start.wall) / operations * 1e6, (end.cpu - start.cpu) / operations * 1e6 };
}

static void set_cpus(const cpu_set_t *cpus) {
    if (pthread_setaffinity_np(pthread_self(), sizeof *cpus, cpus) != 0) { perror("affinity"); exit(1); }
}

static void hold_on_cpu0(void) {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    set_cpus(&cpus);
}

static void send_token(int eventfd) {
    uint64_t token = 1;
    if (write(eventfd, &token, sizeof token) != sizeof token) { perror("write"); exit(1); }
}

static void receive_token(int eventfd) {
    uint64_t token;
    if (read(eventfd, &token, sizeof token) != sizeof token) { perror("read"); exit(1); }
}

struct ping_pong { int to_peer, to_main; long round_trips; };

static void *peer(void *argument) {
    struct ping_pong *game = argument;
    for (long i = 0; i < game->round_trips; i++) {
        receive_token(game->to_peer);
        send_token(game->to_main);
    }
    return NULL;
}

// Per wake-up: a round trip's cost halved. The peer starts with the caller's CPUs (a new thread
// inherits its creator's affinity), and the caller's are put back afterwards.
static struct clocks wake_up(long round_trips, int on_cpu0) {
    struct ping_pong game = { eventfd(0, 0), eventfd(0, 0), round_trips };
    if (game.to_peer < 0 || game.to_main < 0) { perror("eventfd"); exit(1); }
    cpu_set_t cpus_before;
    if (pthread_getaffinity_np(pthread_self(), sizeof cpus_before, &cpus_before) != 0) { perror("affinity"); exit(1); }
    if (on_cpu0) hold_on_cpu0();
    pthread_t thread;
    struct clocks start = now();
    // Without its peer the first receive below would wait for ever.
    if (pthread_create(&thread, NULL, peer, &game) != 0) { perror("pthread_create"); exit(1); }
    for (long i = 0; i < round_trips; i++) {
        send_token(game.to_peer);
        receive_token(game.to_main);
    }
    pthread_join(thread, NULL);
    struct clocks cost = per_operation(start, now(), round_trips * 2);
    set_cpus(&cpus_before);
    close(game.to_peer);
    close(game.to_main);
    return cost;
}

static struct clocks page_write_and_sync(const char *path, long syncs) {
    enum { page = 4096, pages = 64 };
    static char bytes[page];
    int file = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    if (file < 0) { perror(path); exit(1); }
    // The file at its full size and on disk first, so each sync below writes data, not its size.
    for (int i = 0; i < pages; i++) {
        if (pwrite(file, bytes, page, (off_t)i * page) != page) { perror("pwrite"); exit(1); }
    }
    if (fsync(file) != 0) { perror("fsync"); exit(1); }
    struct clocks start = now();
    for (long i = 0; i < syncs; i++) {
        bytes[0] = (char)i;
        if (pwrite(file, bytes, page, (off_t)(i % pages) * page) != page) { perror("pwrite"); exit(1); }
        if (fdatasync(file) != 0) { perror("fdatasync"); exit(1); }
    }
    struct clocks cost = per_operation(start, now(), syncs);
    close(file);
    unlink(path);
    return cost;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: platform-floor FILE [ROUND_TRIPS] [SYNCS]\n"); return 2; }
    long round_trips = argc > 2 ? atol(argv[2]) : 100000;
    long syncs = argc > 3 ? atol(argv[3]) : 2000;
    struct clocks sync = page_write_and_sync(argv[1], syncs);
    struct clocks across = wake_up(round_trips, 0);
    struct clocks one_cpu = wake_up(round_trips, 1);
    printf("{\"wake_up_us\": {\"wall\": %.2f, \"cpu\": %.2f}, "
           "\"wake_up_on_one_cpu_us\": {\"wall\": %.2f, \"cpu\": %.2f}, "
           "\"page_write_and_fdatasync_us\": {\"wall\": %.1f, \"cpu\": %.1f}}\n",
           across.wall, across.cpu, one_cpu.wall, one_cpu.cpu, sync.wall, sync.cpu);
    return 0;
}
