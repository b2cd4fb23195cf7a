// SHA-256 of bytes as lowercase hex (OpenSSL's libcrypto): provenance and digests.
#pragma once

#include <string>
#include <string_view>

namespace kbp::schema {

std::string sha256_hex(std::string_view bytes);

// The same digest over bytes that arrive in pieces (a plan's text as the writer makes it).
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    void add(std::string_view bytes);
    std::string hex();  // once, at the end

private:
    void* context_;  // OpenSSL's EVP_MD_CTX
};

}  // namespace kbp::schema
