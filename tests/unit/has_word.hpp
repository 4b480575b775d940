// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// For tests that check what a message names, not its wording.
#pragma once

#include <cctype>
#include <string_view>

namespace xiw::test {

/// Whether @p text has @p word, not as part of a longer word, number or
/// option ("1" is not in "1000", "--mr" not in "--remote-mr").
inline bool has_word(std::string_view text, std::string_view word)
{
    auto in_word = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    };
    for (auto at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
        auto end = at + word.size();
        if ((at == 0 || !in_word(text[at - 1])) && (end == text.size() || !in_word(text[end])))
            return true;
    }
    return false;
}

}  // namespace xiw::test
