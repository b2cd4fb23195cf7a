#include "schema/temp_cleanup.hpp"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <mutex>

#include <unistd.h>

namespace kbp {
namespace {

constexpr int handled_signals[] = {SIGINT, SIGTERM, SIGHUP};

// A slot is free, being filled (by its owner, with signals held), or live (the handler unlinks
// its path). 64 is more than the writes kbp has open at once (one per planning thread).
enum SlotState : int { free_slot = 0, filling = 1, live = 2 };
struct Slot {
    std::atomic<int> state{free_slot};
    char path[PATH_MAX];
};
Slot slots[64];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads slot states");

extern "C" void remove_temp_files_and_die(int sig) {
    int saved_errno = errno;
    for (auto& slot : slots)
        if (slot.state.load() == live) ::unlink(slot.path);
    // Die of the same signal, as if kbp had never caught it.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, sig);
    ::sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
    ::raise(sig);
    errno = saved_errno;  // not reached unless the default action was changed meanwhile
}

void install_handlers() {
    for (int sig : handled_signals) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) != 0) continue;
        if (old.sa_handler == SIG_IGN) continue;  // nohup and background jobs keep ignoring it
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL) continue;  // someone else's handler
        if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction) continue;
        struct sigaction act {};
        act.sa_handler = remove_temp_files_and_die;
        sigemptyset(&act.sa_mask);
        for (int other : handled_signals) sigaddset(&act.sa_mask, other);
        ::sigaction(sig, &act, nullptr);
    }
}

}  // namespace

SignalsHeld::SignalsHeld() {
    sigset_t held;
    sigemptyset(&held);
    for (int sig : handled_signals) sigaddset(&held, sig);
    ::pthread_sigmask(SIG_BLOCK, &held, &previous_);
}

SignalsHeld::~SignalsHeld() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

int register_temp_file(const char* path) {
    static std::once_flag installed;
    std::call_once(installed, install_handlers);
    std::size_t length = std::strlen(path);
    if (length >= PATH_MAX) return -1;
    for (int i = 0; i < static_cast<int>(std::size(slots)); ++i) {
        int expected = free_slot;
        if (!slots[i].state.compare_exchange_strong(expected, filling)) continue;
        std::memcpy(slots[i].path, path, length + 1);
        slots[i].state.store(live);
        return i;
    }
    return -1;
}

void forget_temp_file(int slot) {
    if (slot >= 0) slots[slot].state.store(free_slot);
}

}  // namespace kbp
