// SHA-256 of bytes as lowercase hex (OpenSSL's libcrypto): provenance and digests.
#pragma once

#include <string>
#include <string_view>

namespace kbp::schema {

std::string sha256_hex(std::string_view bytes);

}  // namespace kbp::schema
