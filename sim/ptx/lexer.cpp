// The PTX lexer (see lexer.hpp). Numbers are range-checked here so that the parser only ever sees
// values that fit 64 bits; every error names the offending text and its position.
#include "ptx/lexer.hpp"

#include <fmt/format.h>

namespace tsm::ptx {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_name_start(char c) { return is_alpha(c) || c == '_' || c == '$'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }
// clang-format off
bool is_punct(char c) {
  switch (c) {
    case ';': case ',': case ':': case '{': case '}': case '[': case ']': case '(': case ')':
    case '<': case '>': case '+': case '-': case '@': case '!': case '|': case '=':
      return true;
    default:
      return false;
  }
}
// clang-format on

unsigned digit_value(char c) {
  if (is_digit(c)) return static_cast<unsigned>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
  return static_cast<unsigned>(c - 'A' + 10);
}

std::string show_char(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("'\\x{:02x}'", u);
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    bool space = true;
    while (true) {
      space = skip_space_and_comments() || space;
      if (pos_ >= text_.size()) break;
      Token token = next();
      token.space_before = space;
      tokens.push_back(token);
      space = false;
    }
    Token end;
    end.kind = Token::Kind::End;
    end.loc = here();
    end.space_before = true;
    tokens.push_back(end);
    return tokens;
  }

 private:
  Loc here() const { return Loc{line_, static_cast<int>(pos_ - line_start_) + 1}; }
  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    ++pos_;
  }

  [[noreturn]] void fail(Loc loc, const std::string& message) const { throw PtxError(file_, loc, message); }

  // Returns whether anything was skipped.
  bool skip_space_and_comments() {
    size_t start = pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        advance();
      } else if (c == '/' && peek(1) == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (c == '/' && peek(1) == '*') {
        Loc open = here();
        advance();
        advance();
        while (pos_ < text_.size() && !(text_[pos_] == '*' && peek(1) == '/')) advance();
        if (pos_ >= text_.size()) fail(open, "unterminated comment: '/*' has no matching '*/'");
        advance();
        advance();
      } else if (c == '@' && peek(1) == '@') {
        // @@DWARF lines carry debug information the simulator does not use.
        if (text_.substr(pos_, 7) != "@@DWARF") fail(here(), "unexpected '@@' (only '@@DWARF' lines are allowed)");
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else {
        break;
      }
    }
    return pos_ != start;
  }

  Token make(Token::Kind kind, size_t start, Loc loc) const {
    Token token;
    token.kind = kind;
    token.text = text_.substr(start, pos_ - start);
    token.loc = loc;
    return token;
  }

  Token next() {
    Loc loc = here();
    size_t start = pos_;
    char c = text_[pos_];
    if (is_name_start(c) || c == '%') {
      advance();
      if (c == '%' && !is_name_start(peek()) && !is_digit(peek())) {
        fail(loc, fmt::format("expected a name after '%', found {}", describe_here()));
      }
      while (is_name_char(peek())) advance();
      return make(Token::Kind::Ident, start, loc);
    }
    if (c == '.') {
      advance();
      // Modifier names may start with a digit: tex.1d, .2d, .3d.
      if (!is_name_start(peek()) && !(is_digit(peek()) && is_name_start(peek(1)))) {
        fail(loc, fmt::format("expected a directive or modifier name after '.', found {}", describe_here()));
      }
      while (true) {
        while (is_name_char(peek())) advance();
        if (peek() == ':' && peek(1) == ':' && is_name_char(peek(2))) {
          advance();
          advance();
          continue;
        }
        break;
      }
      return make(Token::Kind::Dot, start, loc);
    }
    if (is_digit(c)) return number(loc);
    if (c == '"') return string(loc);
    if (is_punct(c)) {
      advance();
      return make(Token::Kind::Punct, start, loc);
    }
    fail(loc, fmt::format("unexpected character {}", show_char(c)));
  }

  std::string describe_here() const {
    if (pos_ >= text_.size()) return "end of file";
    char c = text_[pos_];
    if (c == '\n' || c == '\r') return "end of line";
    return show_char(c);
  }

  // Reads digits of `base` into a 64-bit value; `what` names the literal in errors.
  uint64_t digits(unsigned base, size_t start, Loc loc, const char* what) {
    uint64_t value = 0;
    size_t count = 0;
    while (pos_ < text_.size() && is_hex(text_[pos_])) {
      unsigned d = digit_value(text_[pos_]);
      if (d >= base) break;
      if (value > (UINT64_MAX - d) / base) {
        while (is_name_char(peek())) advance();
        fail(loc, fmt::format("{} '{}' does not fit in 64 bits", what, text_.substr(start, pos_ - start)));
      }
      value = value * base + d;
      advance();
      ++count;
    }
    if (count == 0) {
      while (is_name_char(peek())) advance();
      fail(loc, fmt::format("malformed {} '{}': no digits", what, text_.substr(start, pos_ - start)));
    }
    return value;
  }

  // The literal must end here: a name character right after it means a malformed literal.
  void end_of_literal(size_t start, Loc loc, const char* what) {
    if (!is_name_char(peek())) return;
    while (is_name_char(peek()) || peek() == '.') advance();
    fail(loc, fmt::format("malformed {} '{}'", what, text_.substr(start, pos_ - start)));
  }

  Token number(Loc loc) {
    size_t start = pos_;
    char c0 = text_[pos_];
    char c1 = peek(1);
    Token::Kind kind = Token::Kind::Int;
    uint64_t value = 0;
    bool f64 = false;
    if (c0 == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
      f64 = c1 == 'd' || c1 == 'D';
      size_t want = f64 ? 16 : 8;
      advance();
      advance();
      size_t first = pos_;
      while (is_hex(peek())) advance();
      if (pos_ - first != want || is_name_char(peek())) {
        while (is_name_char(peek())) advance();
        fail(loc, fmt::format("malformed floating-point literal '{}': '0{}' takes exactly {} hex digits",
                              text_.substr(start, pos_ - start), c1, want));
      }
      for (size_t i = first; i < pos_; ++i) value = value << 4 | digit_value(text_[i]);
      Token token = make(Token::Kind::FloatBits, start, loc);
      token.value = value;
      token.f64 = f64;
      return token;
    }
    if (c0 == '0' && (c1 == 'x' || c1 == 'X')) {
      advance();
      advance();
      value = digits(16, start, loc, "hexadecimal literal");
    } else if (c0 == '0' && (c1 == 'b' || c1 == 'B')) {
      advance();
      advance();
      value = digits(2, start, loc, "binary literal");
    } else {
      // Decimal or octal integer, or a decimal floating-point number.
      size_t scan = pos_;
      while (scan < text_.size() && is_digit(text_[scan])) ++scan;
      char after = scan < text_.size() ? text_[scan] : '\0';
      char after2 = scan + 1 < text_.size() ? text_[scan + 1] : '\0';
      bool fraction = after == '.' && is_digit(after2);
      bool exponent = (after == 'e' || after == 'E') &&
                      (is_digit(after2) ||
                       ((after2 == '+' || after2 == '-') && scan + 2 < text_.size() && is_digit(text_[scan + 2])));
      if (fraction || exponent) return decimal(start, loc);
      if (c0 == '0' && is_digit(c1)) {
        advance();
        value = digits(8, start, loc, "octal literal");
        if (is_digit(peek())) {
          while (is_name_char(peek())) advance();
          fail(loc, fmt::format("malformed octal literal '{}': digits must be 0-7", text_.substr(start, pos_ - start)));
        }
      } else {
        value = digits(10, start, loc, "integer literal");
      }
    }
    if (peek() == 'U' || peek() == 'u') advance();
    end_of_literal(start, loc, "integer literal");
    Token token = make(kind, start, loc);
    token.value = value;
    return token;
  }

  Token decimal(size_t start, Loc loc) {
    while (is_digit(peek())) advance();
    if (peek() == '.') {
      advance();
      while (is_digit(peek())) advance();
    }
    if (peek() == 'e' || peek() == 'E') {
      advance();
      if (peek() == '+' || peek() == '-') advance();
      if (!is_digit(peek())) {
        fail(loc, fmt::format("malformed floating-point literal '{}'", text_.substr(start, pos_ - start)));
      }
      while (is_digit(peek())) advance();
    }
    end_of_literal(start, loc, "floating-point literal");
    return make(Token::Kind::Decimal, start, loc);
  }

  Token string(Loc loc) {
    size_t start = pos_;
    advance();
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') {
        fail(loc, "unterminated string literal: the closing '\"' is missing on this line");
      }
      char c = text_[pos_];
      advance();
      if (c == '"') break;
      if (c == '\\' && pos_ < text_.size() && text_[pos_] != '\n') advance();
    }
    return make(Token::Kind::String, start, loc);
  }

  std::string_view text_;
  const std::string& file_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
};

}  // namespace

std::vector<Token> lex(std::string_view text, const std::string& file) { return Lexer(text, file).run(); }

std::string describe(const Token& token) {
  if (token.kind == Token::Kind::End) return "end of file";
  std::string shown;
  for (char c : token.text.substr(0, 40)) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      shown += c;
    } else {
      shown += fmt::format("\\x{:02x}", u);
    }
  }
  if (token.text.size() > 40) shown += "...";
  return fmt::format("'{}'", shown);
}

}  // namespace tsm::ptx
