// The crash hook: signal handlers that write a fixed-size mark into the files of the sessions
// a process is recording, then hand the signal on to whatever handler was installed before.
//
// Written in C so that no Swift runtime code runs inside a signal handler: the handler reads
// only state prepared before the crash and calls only async-signal-safe functions
// (pwrite, clock_gettime, sigaction, raise). Everything that allocates or takes a lock
// (registering a session, reading the loaded images) happens outside it.
#ifndef REWIND_CRASH_H
#define REWIND_CRASH_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The size of a mark, in bytes: the handler writes exactly this many at offset 0.
#define REWIND_CRASH_MARK_SIZE 512
/// How many sessions one process can have marked at once (one per live recorder).
#define REWIND_CRASH_SLOTS 32
/// The mark's format version.
#define REWIND_CRASH_MARK_VERSION 1

/// How many bytes of the last reduced action's file a mark keeps (its end: the file's name).
#define REWIND_CRASH_FILE_CAPACITY 48
/// How many bytes of the last reduced action's case a mark keeps (its start).
#define REWIND_CRASH_CASE_CAPACITY 61
/// Set in a length byte when the text was cut to fit.
#define REWIND_CRASH_CUT 0x80

/// The last action the store reduced, as a mark holds it (its last 128 bytes, which marks
/// written before this field existed leave zero: index 0 reads as not known).
typedef struct __attribute__((packed)) rewind_crash_action {
    /// Its number among the actions handed off (`handed_off` when it was); 0 when none.
    int64_t index;
    uint32_t line;
    uint32_t column;
    /// 1 + the index of its `ActionSource.Origin`; 0 when not known.
    uint8_t origin;
    /// The bytes of `file` used, `| REWIND_CRASH_CUT` when its start was cut.
    uint8_t file_length;
    char file[REWIND_CRASH_FILE_CAPACITY];
    /// The bytes of `case_name` used, `| REWIND_CRASH_CUT` when its end was cut; 0 when the
    /// writer had not named it yet.
    uint8_t case_length;
    char case_name[REWIND_CRASH_CASE_CAPACITY];
} rewind_crash_action;

/// The case of one action, as the writer thread named it.
typedef struct rewind_crash_named {
    /// The action's index (as in `rewind_crash_action`); 0 when none was named.
    int64_t index;
    uint8_t case_length;
    char case_name[REWIND_CRASH_CASE_CAPACITY];
} rewind_crash_named;

/// What a recorder keeps current for its session's mark. The counters are each written by one
/// thread with a relaxed atomic store (`rewind_crash_note_…`) and read by the handler; the two
/// texts are written under a sequence lock (odd while being written), so the handler, which
/// cannot wait, copies them and keeps the copy only when the sequence did not move.
typedef struct rewind_crash_counters {
    /// Actions handed off to the writer so far.
    int64_t handed_off;
    /// Actions whose batch the writer has written (committed or reported lost).
    int64_t written;
    /// The last seq the writer committed in the session.
    int64_t last_seq;
    /// The last action handed off: its index and source (no case), from the dispatch path.
    uint32_t reduced_sequence;
    rewind_crash_action reduced;
    /// The case of an action, from the writer thread (naming a case takes
    /// reflection, too slow for the dispatch path).
    uint32_t named_sequence;
    rewind_crash_named named;
} rewind_crash_counters;

/// Relaxed atomic stores into the counters: one plain store on the dispatch path, never torn
/// for the handler.
static inline void rewind_crash_note_handed_off(rewind_crash_counters *counters, int64_t value) {
    __atomic_store_n(&counters->handed_off, value, __ATOMIC_RELAXED);
}

/// The dispatch path, for each action handed off (by one thread at a time: under the
/// recorder's buffer lock): its index and source. The file's end is kept when it is longer than
/// the field, cut at a character boundary. A few stores and one small copy, no call out.
static inline void rewind_crash_note_reduced(
    rewind_crash_counters *counters, int64_t index, const uint8_t *file, long file_length,
    uint32_t line, uint32_t column, uint8_t origin
) {
    uint32_t sequence = __atomic_load_n(&counters->reduced_sequence, __ATOMIC_RELAXED);
    __atomic_store_n(&counters->reduced_sequence, sequence + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    rewind_crash_action *reduced = &counters->reduced;
    reduced->index = index;
    reduced->line = line;
    reduced->column = column;
    reduced->origin = origin;
    uint8_t cut = 0;
    if (file == 0 || file_length < 0) file_length = 0;
    if (file_length > REWIND_CRASH_FILE_CAPACITY) {
        file += file_length - REWIND_CRASH_FILE_CAPACITY;
        file_length = REWIND_CRASH_FILE_CAPACITY;
        // Never begin inside a character: skip its continuation bytes.
        while (file_length > 0 && (*file & 0xC0) == 0x80) { file++; file_length--; }
        cut = REWIND_CRASH_CUT;
    }
    if (file_length > 0) memcpy(reduced->file, file, (size_t)file_length);
    reduced->file_length = (uint8_t)file_length | cut;
    __atomic_store_n(&counters->reduced_sequence, sequence + 2, __ATOMIC_RELEASE);
}

static inline void rewind_crash_note_written(rewind_crash_counters *counters, int64_t written, int64_t last_seq) {
    __atomic_store_n(&counters->written, written, __ATOMIC_RELAXED);
    __atomic_store_n(&counters->last_seq, last_seq, __ATOMIC_RELAXED);
}

/// The writer thread: action `index` is of case `name` (UTF-8, `length` bytes: its start is
/// kept, cut at a character boundary, when longer than the field).
void rewind_crash_note_named(rewind_crash_counters *counters, int64_t index, const uint8_t *name, long length);

/// Installs the handlers for SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP and SIGFPE
/// (`SA_SIGINFO | SA_ONSTACK`), keeping the handlers installed before to hand each signal on
/// to, and notes the loaded images (for an address's image and offset). Once per process:
/// later calls do nothing. Returns 0, or the `errno` of a failed `sigaction`.
int rewind_crash_install(void);

/// Whether `rewind_crash_install` has run.
int rewind_crash_is_installed(void);

/// Gives the calling thread an alternate signal stack (unless it has one), so that a stack
/// overflow on it can still be marked. Returns the stack to pass to
/// `rewind_crash_release_thread` before the thread ends, or NULL when it had one already
/// (or none could be made).
void *rewind_crash_prepare_thread(void);

/// Takes the calling thread's alternate stack away and frees it.
void rewind_crash_release_thread(void *stack);

/// Makes a zeroed counters block for `rewind_crash_register`; NULL when out of memory.
rewind_crash_counters *rewind_crash_counters_create(void);

/// Frees a counters block once no slot refers to it (after `rewind_crash_unregister`).
void rewind_crash_counters_destroy(rewind_crash_counters *counters);

/// Registers the session whose mark file `descriptor` is open for writing (the slot takes
/// it over and closes it at `rewind_crash_unregister`), with its counters. Returns the slot,
/// or -1 when every slot is taken (the descriptor is then left to the caller).
int rewind_crash_register(int descriptor, rewind_crash_counters *counters);

/// Unregisters `slot`: waits for a handler that is writing through it to finish, then closes
/// its descriptor. After it returns the handler never touches the slot's counters.
void rewind_crash_unregister(int slot);

/// Writes `bytes` (a mark of another kind, composed by the caller: exactly
/// `REWIND_CRASH_MARK_SIZE` of them) at offset 0 of the mark file of the session registered
/// with `counters`, outside any signal handler: the hang watchdog's mark, or zeros to clear it.
/// Never after a crash has begun writing its marks. Returns how many files were written (0 or 1).
int rewind_crash_write_note(rewind_crash_counters *counters, const void *bytes, int length);

#ifdef __cplusplus
}
#endif

#endif
