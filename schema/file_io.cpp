#include "file_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <random>
#include <system_error>
#include <utility>

#include <fcntl.h>

#include <sys/stat.h>
#include <unistd.h>

#include "schema/temp_cleanup.hpp"

namespace kbp {

std::string read_file_head(const std::string& path, std::size_t bytes) {
    std::error_code ec;
    if (path == "-" || !std::filesystem::is_regular_file(path, ec)) return {};
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return {};
    std::string head(bytes, '\0');
    head.resize(std::fread(head.data(), 1, bytes, f));
    std::fclose(f);
    return head;
}

Result<std::string> read_file(const std::string& path) {
    if (path == "-") {
        std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
        text.reserve(text.size() + 64);
        return text;
    }
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return make_error(ErrorCode::invalid_input, path, "is a directory, not a file");
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return make_error(ErrorCode::invalid_input, path, std::strerror(errno));
    std::string text;
    // Spare capacity past the end lets simdjson parse the text in place (see reader.hpp).
    constexpr std::size_t padding = 64;
    std::error_code size_ec;
    auto size = std::filesystem::file_size(path, size_ec);
    if (!size_ec) text.reserve(size + padding);
    char buffer[1 << 16];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
    bool failed = std::ferror(f);
    std::fclose(f);
    if (failed) return make_error(ErrorCode::invalid_input, path, "read error");
    if (text.capacity() - text.size() < padding) text.reserve(text.size() + padding);
    return text;
}

namespace {

// The output error errno describes.
Error os_error(const std::string& path) { return make_error(ErrorCode::output, path, std::strerror(errno)); }

// Follows `path` through symlinks (at most 40, as the kernel does) to the name a write should
// replace: a link is written through, so the link stays and its target gets the new content.
// A dangling link gives the name it points at, which is then created.
Result<std::string> resolve_links(const std::string& path) {
    namespace fs = std::filesystem;
    fs::path p(path);
    for (int hops = 0; hops < 40; ++hops) {
        std::error_code ec;
        auto status = fs::symlink_status(p, ec);
        if (ec || !fs::is_symlink(status)) return p.string();
        fs::path next = fs::read_symlink(p, ec);
        if (ec) return make_error(ErrorCode::output, path, ec.message());
        p = next.is_absolute() ? next : p.parent_path() / next;
    }
    return make_error(ErrorCode::output, path, "too many levels of symbolic links");
}

Status write_all(int fd, std::string_view content, const std::string& path) {
    const char* p = content.data();
    std::size_t left = content.size();
    while (left > 0) {
        ssize_t w = ::write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR) continue;
            return os_error(path);
        }
        p += w;
        left -= static_cast<std::size_t>(w);
    }
    return Ok{};
}

using Producer = std::function<Status(const OutputSink&)>;

// A character device (/dev/null, a terminal) or a FIFO is written into, never replaced.
Status write_in_place(const std::string& path, const Producer& produce) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return os_error(path);
    auto s = produce([&](std::string_view piece) { return write_all(fd, piece, path); });
    if (::close(fd) != 0 && s.ok()) return os_error(path);
    return s;
}

// A temporary file beside `target`, created (O_EXCL) with mode 0666 so the umask applies, and
// registered for removal on a signal. Signals must be held by the caller.
struct Temp {
    int fd = -1;
    int slot = -1;
    std::string path;
};
Result<Temp> create_temp_beside(const std::string& target) {
    namespace fs = std::filesystem;
    fs::path t(target);
    fs::path dir = t.parent_path().empty() ? fs::path(".") : t.parent_path();
    std::string stem = (dir / ("." + t.filename().string() + ".tmp.")).string();
    static constexpr char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device seed;
    std::mt19937_64 random(seed() ^ static_cast<std::uint64_t>(::getpid()));
    for (int attempt = 0; attempt < 100; ++attempt) {
        Temp temp;
        temp.path = stem;
        for (int i = 0; i < 6; ++i) temp.path += letters[random() % (sizeof letters - 1)];
        temp.fd = ::open(temp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (temp.fd >= 0) {
            temp.slot = register_temp_file(temp.path.c_str());
            return temp;
        }
        if (errno != EEXIST) return os_error(target);
    }
    return make_error(ErrorCode::output, target, "no free temporary file name beside it");
}

void discard(const Temp& temp) {
    ::unlink(temp.path.c_str());
    forget_temp_file(temp.slot);
}

}  // namespace

Status write_file_atomic(const std::string& path, std::string_view content) {
    return write_file_atomic(path, [&](const OutputSink& sink) { return sink(content); });
}

Status write_file_atomic(const std::string& path, const Producer& produce) {
    if (path == "-") {
        auto s = produce([](std::string_view piece) -> Status {
            std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size()));
            if (!std::cout) return make_error(ErrorCode::output, "<stdout>", "write failed");
            return Ok{};
        });
        std::cout.flush();
        if (s.ok() && !std::cout) return make_error(ErrorCode::output, "<stdout>", "write failed");
        return s;
    }
    // The kernel follows links (and /dev/stdout's /proc links, which are not paths) to classify.
    struct stat existing {};
    bool exists = ::stat(path.c_str(), &existing) == 0;
    if (exists) {
        if (S_ISDIR(existing.st_mode)) return make_error(ErrorCode::output, path, "is a directory, not a file");
        if (S_ISCHR(existing.st_mode) || S_ISFIFO(existing.st_mode)) return write_in_place(path, produce);
        if (!S_ISREG(existing.st_mode))
            return make_error(ErrorCode::output, path, "is neither a file, a character device nor a FIFO");
    }
    auto target = resolve_links(path);
    if (!target) return target.error();
    Temp temp;
    {
        SignalsHeld held;
        auto created = create_temp_beside(*target);
        if (!created) return created.error().at(path);
        temp = std::move(*created);
    }
    // Every failure from here on removes the temporary file; the target is untouched.
    auto fail = [&](Error error) {
        SignalsHeld held;
        if (temp.fd >= 0) ::close(temp.fd);
        discard(temp);
        return error;
    };
    if (auto s = produce([&](std::string_view piece) { return write_all(temp.fd, piece, path); }); !s) return fail(s.error());
    // A file that is replaced keeps its permissions (a 0600 secret stays 0600).
    if (exists && ::fchmod(temp.fd, existing.st_mode & 07777) != 0) return fail(os_error(path));
    if (::close(std::exchange(temp.fd, -1)) != 0) return fail(os_error(path));
    SignalsHeld held;
    if (std::rename(temp.path.c_str(), target->c_str()) != 0) return fail(os_error(path));
    forget_temp_file(temp.slot);
    return Ok{};
}

}  // namespace kbp
