#include "file_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <random>
#include <system_error>

#include <sys/stat.h>
#include <unistd.h>

namespace kbp {

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

Status write_file_atomic(const std::string& path, std::string_view content) {
    if (path == "-") {
        std::cout.write(content.data(), static_cast<std::streamsize>(content.size()));
        std::cout.flush();
        if (!std::cout) return make_error(ErrorCode::output, "<stdout>", "write failed");
        return Ok{};
    }
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec))
        return make_error(ErrorCode::output, path, "is a directory, not a file");
    fs::path target(path);
    fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    // A unique temporary name in the target's folder, so the rename is atomic.
    std::string tmp = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
    int fd = ::mkstemp(tmp.data());
    if (fd < 0) return make_error(ErrorCode::output, path, std::strerror(errno));
    const char* p = content.data();
    std::size_t left = content.size();
    while (left > 0) {
        ssize_t w = ::write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR) continue;
            int saved = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            return make_error(ErrorCode::output, path, std::strerror(saved));
        }
        p += w;
        left -= static_cast<std::size_t>(w);
    }
    // mkstemp creates 0600; outputs are ordinary files.
    ::fchmod(fd, 0644);
    if (::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
        int saved = errno;
        ::unlink(tmp.c_str());
        return make_error(ErrorCode::output, path, std::strerror(saved));
    }
    return Ok{};
}

}  // namespace kbp
