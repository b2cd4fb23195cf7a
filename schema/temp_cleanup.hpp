// Temporary files that a signal must not leave behind. write_file_atomic registers each temporary
// it creates; on SIGINT, SIGTERM or SIGHUP the handler unlinks every registered path and then lets
// the signal kill the process as it would have (default action, re-raised), so the exit status
// still says "killed by signal N".
//
// The handler uses only async-signal-safe calls (unlink, sigaction, sigprocmask, raise) and reads
// only fixed slots of static storage whose state is a lock-free atomic. A signal that was ignored
// when kbp started (nohup, a shell's background job) stays ignored.
#pragma once

#include <csignal>

namespace kbp {

// Holds SIGINT, SIGTERM and SIGHUP back for its lifetime (on this thread), so that creating a
// temporary file and registering it, or renaming it and unregistering it, is one step to a signal.
class SignalsHeld {
public:
    SignalsHeld();
    ~SignalsHeld();
    SignalsHeld(const SignalsHeld&) = delete;
    SignalsHeld& operator=(const SignalsHeld&) = delete;

private:
    sigset_t previous_;
};

// Registers `path` for removal on a signal (installs the handlers on first use). Returns the slot
// to pass to forget_temp_file, or -1 when every slot is taken or the path is too long (the file
// is then written unprotected, as before this existed).
int register_temp_file(const char* path);

// The file at `slot` (from register_temp_file; -1 is ignored) is no longer kbp's to remove: it
// was renamed over its target or unlinked.
void forget_temp_file(int slot);

}  // namespace kbp
