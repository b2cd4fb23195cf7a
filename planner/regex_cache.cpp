#include "planner/regex_cache.hpp"

#include <map>
#include <mutex>

namespace kbp::planner {

const CompiledRegex& compiled_regex(std::string_view text) {
    // One map for the process, not one per thread: a pattern is compiled once however many
    // threads plan. Entries are never erased, so the references handed out stay valid; the
    // transparent comparator finds a pattern by its text without building a string.
    static std::mutex mutex;
    static std::map<std::string, CompiledRegex, std::less<>> compiled;
    std::lock_guard lock(mutex);
    if (auto it = compiled.find(text); it != compiled.end()) return it->second;
    CompiledRegex c;
    try {
        c.regex.emplace(std::string(text), std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        c.problem = e.what();
    }
    return compiled.emplace(std::string(text), std::move(c)).first->second;
}

}  // namespace kbp::planner
