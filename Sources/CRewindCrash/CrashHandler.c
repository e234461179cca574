// The crash hook's handler and the state it reads. See CRewindCrash.h for the contract.
//
// Only async-signal-safe calls happen inside `handle`: pwrite, clock_gettime, getpid,
// sigaction, pthread_sigmask, sigismember/sigaddset/sigdelset, raise, memset/memcpy, and C11
// atomics that are lock-free. Everything else (the image table,
// the slots' descriptors, the alternate stacks) is prepared before a crash.
#if defined(__linux__)
#define _GNU_SOURCE
#endif

#include "CRewindCrash.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <pthread.h>

#if defined(__linux__)
#include <link.h>
#include <elf.h>
#include <ucontext.h>
#elif defined(__APPLE__)
#include <mach-o/dyld.h>
#include <mach-o/loader.h>
#include <sys/ucontext.h>
#endif

// MARK: - The mark

// The bytes the handler writes, at offset 0 of each session's mark file. Little-endian on
// every platform Rewind runs on; RewindLogCore's `CrashMark` reads it field by field.
typedef struct __attribute__((packed)) rewind_crash_mark {
    char magic[8];               //   0: "RWNDCRSH"
    uint32_t version;            //   8: REWIND_CRASH_MARK_VERSION
    uint32_t size;               //  12: REWIND_CRASH_MARK_SIZE
    int32_t signal;              //  16
    int32_t code;                //  20: si_code
    uint64_t address;            //  24: si_addr: the faulting address (faults), else 0
    uint64_t pc;                 //  32: the instruction the signal interrupted (Linux), else 0
    uint64_t image_offset;       //  40: pc minus its image's load address, when known
    int64_t handed_off;          //  48
    int64_t written;             //  56
    int64_t last_seq;            //  64
    int64_t time_seconds;        //  72: CLOCK_REALTIME
    int64_t time_nanoseconds;    //  80
    uint32_t build_id_length;    //  88: 0 when the image is unknown or has none
    uint8_t build_id[32];        //  92
    uint32_t pid;                // 124
    char image[256];             // 128: the image's path, NUL-terminated; empty when unknown
    rewind_crash_action last_reduced; // 384: zero in marks written before it existed
} rewind_crash_mark;

_Static_assert(sizeof(rewind_crash_mark) == REWIND_CRASH_MARK_SIZE, "a mark is REWIND_CRASH_MARK_SIZE bytes");
_Static_assert(sizeof(rewind_crash_action) == 128, "the last reduced action fills the mark's last 128 bytes");

// MARK: - Slots

// A registered session. `descriptor`: -1 free, -2 being claimed or released, else open.
typedef struct rewind_crash_slot {
    atomic_int descriptor;
    _Atomic(rewind_crash_counters *) counters;
    // Handlers writing through this slot right now (an unregister waits for them).
    atomic_int busy;
} rewind_crash_slot;

static rewind_crash_slot slots[REWIND_CRASH_SLOTS];
static atomic_int slots_ready;

static void prepare_slots(void) {
    if (atomic_load(&slots_ready)) return;
    for (int index = 0; index < REWIND_CRASH_SLOTS; index++) {
        int expected = 0;
        // Zeroed static memory reads as descriptor 0: make every slot free once.
        atomic_compare_exchange_strong(&slots[index].descriptor, &expected, -1);
    }
    atomic_store(&slots_ready, 1);
}

rewind_crash_counters *rewind_crash_counters_create(void) {
    return calloc(1, sizeof(rewind_crash_counters));
}

void rewind_crash_counters_destroy(rewind_crash_counters *counters) {
    free(counters);
}

int rewind_crash_register(int descriptor, rewind_crash_counters *counters) {
    if (descriptor < 0 || counters == NULL) return -1;
    prepare_slots();
    for (int index = 0; index < REWIND_CRASH_SLOTS; index++) {
        int expected = -1;
        if (atomic_compare_exchange_strong(&slots[index].descriptor, &expected, -2)) {
            atomic_store(&slots[index].counters, counters);
            atomic_store(&slots[index].descriptor, descriptor);
            return index;
        }
    }
    return -1;
}

void rewind_crash_unregister(int slot) {
    if (slot < 0 || slot >= REWIND_CRASH_SLOTS) return;
    int descriptor = atomic_load(&slots[slot].descriptor);
    // Free already, or another thread's claim or release under way: not this caller's slot.
    if (descriptor < 0 || !atomic_compare_exchange_strong(&slots[slot].descriptor, &descriptor, -2)) return;
    // Sequentially consistent with the handler's `busy` increment and descriptor load: either
    // the handler saw -2, or this sees it busy and waits. A handler that never returns (its
    // process is ending) keeps the descriptor open: bounded, then left open rather than closed
    // under a write.
    int waited = 0;
    while (atomic_load(&slots[slot].busy) > 0 && waited < 100000) {
        sched_yield();
        waited++;
    }
    if (atomic_load(&slots[slot].busy) == 0 && descriptor >= 0) close(descriptor);
    atomic_store(&slots[slot].counters, NULL);
    atomic_store(&slots[slot].descriptor, -1);
}

// Set by the handler before it writes: a note written after a crash mark would hide it.
static atomic_int crashing;

int rewind_crash_write_note(rewind_crash_counters *counters, const void *bytes, int length) {
    if (counters == NULL || bytes == NULL || length != REWIND_CRASH_MARK_SIZE || !atomic_load(&slots_ready)) return 0;
    int written = 0;
    for (int index = 0; index < REWIND_CRASH_SLOTS; index++) {
        rewind_crash_slot *slot = &slots[index];
        if (atomic_load(&slot->counters) != counters) continue;
        // The same protection as the handler's: an unregister waits for this write.
        atomic_fetch_add(&slot->busy, 1);
        int descriptor = atomic_load(&slot->descriptor);
        if (descriptor >= 0 && atomic_load(&slot->counters) == counters && !atomic_load(&crashing)) {
            if (pwrite(descriptor, bytes, (size_t)length, 0) == (ssize_t)length) written++;
        }
        atomic_fetch_sub(&slot->busy, 1);
    }
    return written;
}

// MARK: - Images (for an address's image, offset and build id)

typedef struct rewind_crash_image {
    uintptr_t start, end;        // an executable segment
    uintptr_t base;              // the image's load address
    uint32_t build_id_length;
    uint8_t build_id[32];
    char path[256];
} rewind_crash_image;

#define REWIND_CRASH_IMAGES 256
static rewind_crash_image images[REWIND_CRASH_IMAGES];
static int image_count;

static void copy_path(char *destination, const char *source) {
    size_t length = source ? strlen(source) : 0;
    if (length > 255) length = 255;
    if (length > 0) memcpy(destination, source, length);
    destination[length] = 0;
}

#if defined(__linux__)

static int note_image(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    const char *name = info->dlpi_name;
    char executable[256] = {0};
    if (name == NULL || name[0] == 0) {
        // The main executable is listed without a name.
        ssize_t length = readlink("/proc/self/exe", executable, sizeof(executable) - 1);
        if (length > 0) executable[length] = 0;
        name = executable;
    }
    uint32_t build_id_length = 0;
    uint8_t build_id[32] = {0};
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_NOTE) continue;
        const uint8_t *note = (const uint8_t *)(info->dlpi_addr + header->p_vaddr);
        const uint8_t *end = note + header->p_memsz;
        while (note + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nhdr = (const ElfW(Nhdr) *)note;
            const uint8_t *name_bytes = note + sizeof(ElfW(Nhdr));
            const uint8_t *descriptor = name_bytes + ((nhdr->n_namesz + 3) & ~3u);
            const uint8_t *next = descriptor + ((nhdr->n_descsz + 3) & ~3u);
            if (next > end) break;
            if (nhdr->n_type == NT_GNU_BUILD_ID && nhdr->n_namesz == 4 && memcmp(name_bytes, "GNU", 4) == 0) {
                build_id_length = nhdr->n_descsz > 32 ? 32 : nhdr->n_descsz;
                memcpy(build_id, descriptor, build_id_length);
            }
            note = next;
        }
    }
    for (int index = 0; index < info->dlpi_phnum && image_count < REWIND_CRASH_IMAGES; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || !(header->p_flags & PF_X)) continue;
        rewind_crash_image *image = &images[image_count++];
        image->start = info->dlpi_addr + header->p_vaddr;
        image->end = image->start + header->p_memsz;
        image->base = info->dlpi_addr;
        image->build_id_length = build_id_length;
        memcpy(image->build_id, build_id, sizeof(build_id));
        copy_path(image->path, name);
    }
    (void)context;
    return 0;
}
#endif

#if defined(__APPLE__) && defined(__LP64__)
// An image as dyld lists it: its __TEXT segment, its load address (the Mach-O header: what
// `atos -l` takes) and its LC_UUID as the build id. Not compiled or run on Linux, where the
// project's tests run: what a mark says on Apple platforms is not proven (see CrashHook).
static void note_image(uint32_t index) {
    const struct mach_header *header = _dyld_get_image_header(index);
    if (header == NULL || header->magic != MH_MAGIC_64) return;
    intptr_t slide = _dyld_get_image_vmaddr_slide(index);
    uint32_t build_id_length = 0;
    uint8_t build_id[32] = {0};
    uintptr_t start = 0, end = 0;
    const uint8_t *command = (const uint8_t *)header + sizeof(struct mach_header_64);
    for (uint32_t number = 0; number < header->ncmds; number++) {
        const struct load_command *load = (const struct load_command *)command;
        if (load->cmdsize < sizeof(struct load_command)) break;
        if (load->cmd == LC_UUID && load->cmdsize >= sizeof(struct uuid_command)) {
            memcpy(build_id, ((const struct uuid_command *)command)->uuid, 16);
            build_id_length = 16;
        } else if (load->cmd == LC_SEGMENT_64 && load->cmdsize >= sizeof(struct segment_command_64)) {
            const struct segment_command_64 *segment = (const struct segment_command_64 *)command;
            if (strncmp(segment->segname, "__TEXT", sizeof(segment->segname)) == 0) {
                start = (uintptr_t)(segment->vmaddr + (uint64_t)slide);
                end = start + (uintptr_t)segment->vmsize;
            }
        }
        command += load->cmdsize;
    }
    if (end <= start || image_count >= REWIND_CRASH_IMAGES) return;
    rewind_crash_image *image = &images[image_count++];
    image->start = start;
    image->end = end;
    image->base = (uintptr_t)header;
    image->build_id_length = build_id_length;
    memcpy(image->build_id, build_id, sizeof(build_id));
    copy_path(image->path, _dyld_get_image_name(index));
}
#endif

static void note_images(void) {
    image_count = 0;
#if defined(__linux__)
    dl_iterate_phdr(note_image, NULL);
#elif defined(__APPLE__) && defined(__LP64__)
    uint32_t count = _dyld_image_count();
    for (uint32_t index = 0; index < count; index++) note_image(index);
#endif
    // Elsewhere (32-bit watches, other systems) a mark holds the signal and the faulting
    // address, not the image, offset and build id.
}

static const rewind_crash_image *image_holding(uintptr_t address) {
    for (int index = 0; index < image_count; index++) {
        if (address >= images[index].start && address < images[index].end) return &images[index];
    }
    return NULL;
}

// MARK: - The handler

static const int handled_signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE};
#define HANDLED_COUNT (sizeof(handled_signals) / sizeof(handled_signals[0]))
static struct sigaction previous[HANDLED_COUNT];
static atomic_int installed;

static uintptr_t interrupted_pc(void *context) {
#if defined(__linux__) && defined(__x86_64__)
    return context ? (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP] : 0;
#elif defined(__linux__) && defined(__aarch64__)
    return context ? (uintptr_t)((ucontext_t *)context)->uc_mcontext.pc : 0;
#elif defined(__APPLE__) && defined(__arm64__) && defined(__LP64__)
    if (context == NULL || ((ucontext_t *)context)->uc_mcontext == NULL) return 0;
#if defined(__darwin_arm_thread_state64_get_pc)
    // Strips a pointer-authentication signature (arm64e).
    return (uintptr_t)__darwin_arm_thread_state64_get_pc(((ucontext_t *)context)->uc_mcontext->__ss);
#else
    return (uintptr_t)((ucontext_t *)context)->uc_mcontext->__ss.__pc;
#endif
#elif defined(__APPLE__) && defined(__x86_64__)
    if (context == NULL || ((ucontext_t *)context)->uc_mcontext == NULL) return 0;
    return (uintptr_t)((ucontext_t *)context)->uc_mcontext->__ss.__rip;
#else
    (void)context;
    return 0;
#endif
}

static void fill_mark(rewind_crash_mark *mark, int signal, int code, uintptr_t address, uintptr_t pc) {
    memset(mark, 0, sizeof(*mark));
    memcpy(mark->magic, "RWNDCRSH", 8);
    mark->version = REWIND_CRASH_MARK_VERSION;
    mark->size = REWIND_CRASH_MARK_SIZE;
    mark->signal = signal;
    mark->code = code;
    mark->address = address;
    mark->pc = pc;
    const rewind_crash_image *image = pc ? image_holding(pc) : NULL;
    if (image) {
        mark->image_offset = pc - image->base;
        mark->build_id_length = image->build_id_length;
        memcpy(mark->build_id, image->build_id, sizeof(mark->build_id));
        memcpy(mark->image, image->path, sizeof(mark->image));
    }
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) == 0) {
        mark->time_seconds = now.tv_sec;
        mark->time_nanoseconds = now.tv_nsec;
    }
    mark->pid = (uint32_t)getpid();
}

void rewind_crash_note_named(rewind_crash_counters *counters, int64_t index, const uint8_t *name, long length) {
    if (counters == NULL) return;
    uint8_t cut = 0;
    if (name == NULL || length < 0) length = 0;
    if (length > REWIND_CRASH_CASE_CAPACITY) {
        length = REWIND_CRASH_CASE_CAPACITY;
        // Never end inside a character: drop a character whose bytes do not all fit.
        while (length > 0 && (name[length] & 0xC0) == 0x80) length--;
        cut = REWIND_CRASH_CUT;
    }
    uint32_t sequence = __atomic_load_n(&counters->named_sequence, __ATOMIC_RELAXED);
    __atomic_store_n(&counters->named_sequence, sequence + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    counters->named.index = index;
    if (length > 0) memcpy(counters->named.case_name, name, (size_t)length);
    counters->named.case_length = (uint8_t)length | cut;
    __atomic_store_n(&counters->named_sequence, sequence + 2, __ATOMIC_RELEASE);
}

// Copies `size` bytes written under the sequence lock `sequence` into `copy`; 0 (and zeros)
// when a writer was busy with them on every try. Never waits: the handler cannot.
static int copy_consistent(const uint32_t *sequence, const void *source, void *copy, size_t size) {
    for (int attempt = 0; attempt < 4; attempt++) {
        uint32_t before = __atomic_load_n(sequence, __ATOMIC_ACQUIRE);
        if (before & 1) continue;
        memcpy(copy, source, size);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(sequence, __ATOMIC_RELAXED) == before) return 1;
    }
    memset(copy, 0, size);
    return 0;
}

// The last reduced action of `counters`, with its case when the writer had named that one.
static void copy_last_reduced(rewind_crash_counters *counters, rewind_crash_action *action) {
    if (!copy_consistent(&counters->reduced_sequence, &counters->reduced, action, sizeof(*action))) return;
    rewind_crash_named named;
    if (!copy_consistent(&counters->named_sequence, &counters->named, &named, sizeof(named))) return;
    if (action->index != 0 && named.index == action->index) {
        action->case_length = named.case_length;
        memcpy(action->case_name, named.case_name, sizeof(action->case_name));
    }
}

// Writes the mark to every registered session; how many were written.
static int write_marks(rewind_crash_mark *mark) {
    if (!atomic_load(&slots_ready)) return 0;
    int written = 0;
    for (int index = 0; index < REWIND_CRASH_SLOTS; index++) {
        rewind_crash_slot *slot = &slots[index];
        atomic_fetch_add(&slot->busy, 1);
        int descriptor = atomic_load(&slot->descriptor);
        rewind_crash_counters *counters = atomic_load(&slot->counters);
        if (descriptor >= 0 && counters != NULL) {
            mark->handed_off = __atomic_load_n(&counters->handed_off, __ATOMIC_RELAXED);
            mark->written = __atomic_load_n(&counters->written, __ATOMIC_RELAXED);
            mark->last_seq = __atomic_load_n(&counters->last_seq, __ATOMIC_RELAXED);
            copy_last_reduced(counters, &mark->last_reduced);
            if (pwrite(descriptor, mark, sizeof(*mark), 0) == (ssize_t)sizeof(*mark)) written++;
        }
        atomic_fetch_sub(&slot->busy, 1);
    }
    return written;
}

static void handle(int signal, siginfo_t *info, void *context) {
    int saved_errno = errno;
    atomic_store(&crashing, 1);
    rewind_crash_mark mark;
    fill_mark(&mark, signal, info ? info->si_code : 0, info ? (uintptr_t)info->si_addr : 0, interrupted_pc(context));
    write_marks(&mark);

    // Hand the signal on to the handler installed before, as it asked to be called.
    int index = 0;
    while (index < (int)HANDLED_COUNT && handled_signals[index] != signal) index++;
    if (index < (int)HANDLED_COUNT) {
        struct sigaction *before = &previous[index];
        int calls_info = (before->sa_flags & SA_SIGINFO) && before->sa_sigaction != NULL;
        int calls_plain = !(before->sa_flags & SA_SIGINFO) && before->sa_handler != SIG_DFL && before->sa_handler != SIG_IGN;
        if (calls_info || calls_plain) {
            // Called as the kernel would have called it: with its own mask, and with this
            // signal unblocked if it asked for SA_NODEFER. (Swift's backtracer does: it reads
            // the crashed process's memory from inside its handler and catches the faults that
            // causes; with the signal blocked, the first such fault ended the process halfway
            // through the backtrace.)
            sigset_t saved_mask, mask;
            pthread_sigmask(SIG_SETMASK, NULL, &saved_mask);
            mask = saved_mask;
            for (int other = 1; other < NSIG; other++) {
                if (sigismember(&before->sa_mask, other) == 1) sigaddset(&mask, other);
            }
            if (before->sa_flags & SA_NODEFER) sigdelset(&mask, signal); else sigaddset(&mask, signal);
            if (before->sa_flags & SA_RESETHAND) {
                struct sigaction reset;
                memset(&reset, 0, sizeof(reset));
                reset.sa_handler = SIG_DFL;
                sigemptyset(&reset.sa_mask);
                sigaction(signal, &reset, NULL);
            }
            pthread_sigmask(SIG_SETMASK, &mask, NULL);
            if (calls_info) before->sa_sigaction(signal, info, context); else before->sa_handler(signal);
            pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
            errno = saved_errno;
            return;
        }
    }
    // No handler before (or one ignoring a fault, which would fault again forever): the
    // default action ends the process. A fault happens again on return; a signal that was
    // sent (abort, raise, kill) is raised again, and is delivered once this handler returns.
    struct sigaction fallback;
    memset(&fallback, 0, sizeof(fallback));
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal, &fallback, NULL);
    if (info == NULL || info->si_code <= 0) raise(signal);
    errno = saved_errno;
}

int rewind_crash_install(void) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&installed, &expected, 1)) return 0;
    prepare_slots();
    note_images();
    for (size_t index = 0; index < HANDLED_COUNT; index++) {
        struct sigaction action;
        memset(&action, 0, sizeof(action));
        action.sa_sigaction = handle;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        if (sigaction(handled_signals[index], &action, &previous[index]) != 0) {
            int error = errno;
            // Put back the ones already replaced: all or nothing.
            for (size_t undo = 0; undo < index; undo++) sigaction(handled_signals[undo], &previous[undo], NULL);
            atomic_store(&installed, 0);
            return error;
        }
    }
    return 0;
}

int rewind_crash_is_installed(void) {
    return atomic_load(&installed);
}

// MARK: - Alternate stacks

#define REWIND_CRASH_STACK_SIZE (64 * 1024)

void *rewind_crash_prepare_thread(void) {
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && !(current.ss_flags & SS_DISABLE) && current.ss_sp != NULL) return NULL;
    void *memory = malloc(REWIND_CRASH_STACK_SIZE);
    if (memory == NULL) return NULL;
    stack_t stack;
    memset(&stack, 0, sizeof(stack));
    stack.ss_sp = memory;
    stack.ss_size = REWIND_CRASH_STACK_SIZE;
    if (sigaltstack(&stack, NULL) != 0) {
        free(memory);
        return NULL;
    }
    return memory;
}

void rewind_crash_release_thread(void *memory) {
    if (memory == NULL) return;
    stack_t disabled;
    memset(&disabled, 0, sizeof(disabled));
    disabled.ss_flags = SS_DISABLE;
    sigaltstack(&disabled, NULL);
    free(memory);
}
