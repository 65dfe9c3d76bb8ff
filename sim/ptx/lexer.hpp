// The PTX lexer: turns module text into tokens with line:column positions. Comments, @@DWARF
// lines and whitespace are dropped; everything else the parser needs to judge is a token.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ptx/ast.hpp"

namespace tsm::ptx {

struct Token {
  enum class Kind {
    Ident,      // foo, %r1, $L__BB0_2, _ (the parser decides what a name means)
    Dot,        // .u32, .version, .x, .L2::evict_last: a directive or modifier, text includes the dot
    Int,        // 42, 0x2aU, 017, 0b101: value in `value`
    FloatBits,  // 0f3F800000 (`f64` false) or 0d3FF0000000000000 (`f64` true): raw bits in `value`
    Decimal,    // 1.5, 2e-3, 9.0: text only (the parser converts; .version reads it as major.minor)
    String,     // "file.cu": text includes the quotes
    Punct,      // one of ; , : { } [ ] ( ) < > + - @ ! | =
    End,        // end of input
  } kind = Kind::End;
  std::string_view text;
  Loc loc;
  uint64_t value = 0;
  bool f64 = false;
  bool space_before = false;  // whitespace or a comment separates it from the previous token

  bool is(char c) const { return kind == Kind::Punct && text.size() == 1 && text[0] == c; }
  bool is_dot(std::string_view name) const { return kind == Kind::Dot && text == name; }
};

/// Splits `text` into tokens ending with one Kind::End token. Throws PtxError at the first
/// character that cannot start a token, a malformed number, or an unterminated comment or string.
std::vector<Token> lex(std::string_view text, const std::string& file);

/// A token as an error message shows it: 'foo', or "end of file".
std::string describe(const Token& token);

}  // namespace tsm::ptx
