// Two-pass assembler for TeslaSM native assembly, and the module disassembler that inverts it.
// Operand syntax and modifiers come from the generated ISA table; nothing here names an opcode.
#include "assembler.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "isa.hpp"

namespace tsm {

using isa::Field;
using isa::FieldInfo;
using isa::InsnInfo;
using isa::OperandInfo;
using isa::OperandKind;
using isa::gen::Bsel;
using isa::gen::FieldKind;
using isa::gen::ImmKind;

AsmError::AsmError(const std::string& file, int line_, int col_, const std::string& msg)
    : std::runtime_error(fmt::format("{}:{}:{}: error: {}", file, line_, col_, msg)), line(line_), col(col_), message(msg) {}

namespace {

std::string upper(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

bool ident_head(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }
bool ident_char(char c) { return ident_head(c) || std::isdigit(static_cast<unsigned char>(c)); }
bool is_ident(std::string_view s) { return !s.empty() && ident_head(s[0]) && std::all_of(s.begin(), s.end(), ident_char); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<int64_t> parse_int(std::string_view s) {
  s = trim(s);
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (std::isdigit(static_cast<unsigned char>(c))) d = c - '0';
    else if (base == 16 && std::isxdigit(static_cast<unsigned char>(c))) d = std::tolower(c) - 'a' + 10;
    else return std::nullopt;
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) return std::nullopt;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  if (v > (uint64_t{1} << 62)) return std::nullopt;
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

/// Bits of a floating-point literal: decimal, inf, or raw 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX.
std::optional<uint64_t> parse_float_bits(std::string_view s, bool f64) {
  s = trim(s);
  const std::string_view raw_prefix = f64 ? "0d" : "0f";
  if (s.size() > 2 && s.substr(0, 2) == raw_prefix) {
    const auto hex = s.substr(2);
    if (hex.size() != (f64 ? 16u : 8u) || !std::all_of(hex.begin(), hex.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
      return std::nullopt;
    return std::strtoull(std::string(hex).c_str(), nullptr, 16);
  }
  std::string str(s);
  const std::string low = upper(str);
  if (low == "INF" || low == "+INF" || low == "-INF") {
    const bool neg = low[0] == '-';
    return f64 ? std::bit_cast<uint64_t>(neg ? -HUGE_VAL : HUGE_VAL)
               : std::bit_cast<uint32_t>(neg ? -HUGE_VALF : HUGE_VALF);
  }
  if (str.empty() || !(std::isdigit(static_cast<unsigned char>(str.back())) || str.back() == '.')) return std::nullopt;
  if (low.find("NAN") != std::string::npos || low.find("INF") != std::string::npos || low.find("0X") != std::string::npos)
    return std::nullopt;
  char* end = nullptr;
  errno = 0;
  uint64_t bits;
  if (f64) bits = std::bit_cast<uint64_t>(std::strtod(str.c_str(), &end));
  else bits = std::bit_cast<uint32_t>(std::strtof(str.c_str(), &end));
  if (end != str.c_str() + str.size()) return std::nullopt;
  return bits;
}

bool looks_like_float(std::string_view s) {
  s = trim(s);
  const std::string u = upper(s);
  if (u.rfind("0F", 0) == 0 || u.rfind("0D", 0) == 0 || u.find("INF") != std::string::npos) return true;
  return u.rfind("0X", 0) != 0 && u.rfind("-0X", 0) != 0 && (u.find('.') != std::string::npos || u.find('E') != std::string::npos);
}

std::optional<unsigned> parse_reg(std::string_view s) {
  s = trim(s);
  const std::string u = upper(s);
  if (u == "RZ") return isa::kRZ;
  if (u.size() < 2 || u[0] != 'R') return std::nullopt;
  auto v = parse_int(u.substr(1));
  if (!v || u[1] == '-' || u[1] == '+' || *v < 0 || *v >= static_cast<int64_t>(isa::kRZ)) return std::nullopt;
  return static_cast<unsigned>(*v);
}

std::optional<unsigned> parse_pred(std::string_view s) {
  const std::string u = upper(trim(s));
  if (u == "PT") return isa::kPT;
  if (u.size() == 2 && u[0] == 'P' && u[1] >= '0' && u[1] < '0' + static_cast<int>(isa::kPT)) return static_cast<unsigned>(u[1] - '0');
  return std::nullopt;
}

// Split at commas outside brackets; returns (text, column offset) pairs.
std::vector<std::pair<std::string_view, size_t>> split_operands(std::string_view s) {
  std::vector<std::pair<std::string_view, size_t>> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || (s[i] == ',' && depth == 0)) {
      std::string_view part = s.substr(start, i - start);
      size_t lead = 0;
      while (lead < part.size() && std::isspace(static_cast<unsigned char>(part[lead]))) ++lead;
      out.emplace_back(trim(part), start + lead);
      start = i + 1;
    } else if (s[i] == '[') {
      ++depth;
    } else if (s[i] == ']') {
      --depth;
    }
  }
  return out;
}

// Where a `//` or `#` comment starts, outside string literals (or the end of the line).
size_t comment_start(std::string_view line) {
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '#' || (c == '/' && i + 1 < line.size() && line[i + 1] == '/')) {
      return i;
    }
  }
  return line.size();
}

struct Pending {
  int line;
  int col;  // 1-based column of the instruction text
  std::string text;
  uint32_t pc;
  int kernel;  // index into module kernels, -1 before the first .kernel
};

struct SymbolRef {
  uint32_t bank;
  uint32_t offset;
};

class Assembler {
 public:
  explicit Assembler(std::string_view file) : file_(file) {}

  Module run(std::string_view source) {
    int line_no = 0;
    size_t pos = 0;
    while (pos <= source.size()) {
      size_t nl = source.find('\n', pos);
      if (nl == std::string_view::npos) nl = source.size();
      ++line_no;
      first_pass_line(line_no, source.substr(pos, nl - pos));
      pos = nl + 1;
    }
    place_global_slots();
    for (const auto& p : pending_) m_.text[p.pc] = encode(p);
    infer_register_counts();
    try {
      m_.validate(file_);
    } catch (const FormatError& e) {
      throw AsmError(file_, line_no, 1, e.what());
    }
    return std::move(m_);
  }

  uint64_t instruction(std::string_view text) {
    const std::string_view t = trim(text);
    const int col = static_cast<int>(text.find_first_not_of(" \t")) + 1;
    return encode(Pending{1, col, std::string(t), 0, -1});
  }

 private:
  [[noreturn]] void fail(int line, int col, const std::string& msg) const { throw AsmError(file_, line, col, msg); }

  // ---- pass 1: labels, directives, instruction positions --------------------------------------
  void first_pass_line(int line, std::string_view text) {
    std::string_view s = text.substr(0, comment_start(text));
    size_t col = 0;
    while (true) {
      while (col < s.size() && std::isspace(static_cast<unsigned char>(s[col]))) ++col;
      size_t end = col;
      while (end < s.size() && ident_char(s[end])) ++end;
      if (end > col && s[col] != '.' && end < s.size() && s[end] == ':') {
        define_label(line, static_cast<int>(col) + 1, std::string(s.substr(col, end - col)));
        col = end + 1;
        continue;
      }
      break;
    }
    std::string_view rest = trim(s.substr(std::min(col, s.size())));
    if (rest.empty()) return;
    const int rest_col = static_cast<int>(s.find(rest.front(), col)) + 1;
    if (rest.front() == '.') {
      directive(line, rest_col, rest);
      return;
    }
    pending_.push_back({line, rest_col, std::string(rest), static_cast<uint32_t>(m_.text.size()),
                        static_cast<int>(m_.kernels.size()) - 1});
    m_.text.push_back(0);
  }

  void define_label(int line, int col, const std::string& name) {
    if (!is_ident(name)) fail(line, col, fmt::format("'{}' is not a valid label name", name));
    if (!labels_.emplace(name, static_cast<uint32_t>(m_.text.size())).second)
      fail(line, col, fmt::format("label '{}' is defined twice", name));
  }

  KernelInfo& current_kernel(int line, int col, std::string_view what) {
    if (m_.kernels.empty()) fail(line, col, fmt::format("{} must follow a .kernel directive", what));
    return m_.kernels.back();
  }

  uint32_t parse_u32(int line, int col, std::string_view s, std::string_view what) const {
    auto v = parse_int(s);
    if (!v || *v < 0 || *v > 0xFFFFFFFF) fail(line, col, fmt::format("{} must be an unsigned integer, got '{}'", what, s));
    return static_cast<uint32_t>(*v);
  }

  void directive(int line, int col, std::string_view text) {
    std::vector<std::string_view> words;
    {
      std::string_view t = text;
      while (!(t = trim(t)).empty()) {
        size_t e = 0;
        while (e < t.size() && !std::isspace(static_cast<unsigned char>(t[e]))) ++e;
        words.push_back(t.substr(0, e));
        t.remove_prefix(e);
      }
    }
    const std::string d(words[0]);
    auto need = [&](size_t n, const char* usage) {
      if (words.size() != n) fail(line, col, fmt::format("usage: {}", usage));
    };
    if (d == ".version") {
      need(2, ".version N");
      if (parse_u32(line, col, words[1], "version") != isa::gen::kIsaVersion)
        fail(line, col, fmt::format("source is for ISA version {}, this assembler implements version {}", words[1], isa::gen::kIsaVersion));
    } else if (d == ".kernel" || d == ".func") {
      need(2, d == ".kernel" ? ".kernel NAME" : ".func NAME");
      const std::string name(words[1]);
      define_label(line, col, name);
      if (d == ".kernel") {
        KernelInfo k;
        k.name = name;
        k.entry = static_cast<uint32_t>(m_.text.size());
        m_.kernels.push_back(std::move(k));
        regs_explicit_.push_back(false);
      } else {
        m_.functions.push_back({name, static_cast<uint32_t>(m_.text.size())});
      }
    } else if (d == ".regs") {
      need(2, ".regs N");
      current_kernel(line, col, ".regs").regs = parse_u32(line, col, words[1], "register count");
      regs_explicit_.back() = true;
    } else if (d == ".shared") {
      need(2, ".shared BYTES");
      current_kernel(line, col, ".shared").shared_bytes = parse_u32(line, col, words[1], "shared bytes");
    } else if (d == ".local") {
      need(2, ".local BYTES");
      current_kernel(line, col, ".local").local_bytes = parse_u32(line, col, words[1], "local bytes");
    } else if (d == ".param") {
      param(line, col, words);
    } else if (d == ".const" || d == ".literal" || d == ".global") {
      data(line, col, d, text);
    } else {
      fail(line, col, fmt::format("unknown directive '{}' (known: .version .kernel .func .regs .shared .local .param .const .literal .global)", d));
    }
  }

  void param(int line, int col, const std::vector<std::string_view>& w) {
    KernelInfo& k = current_kernel(line, col, ".param");
    ParamInfo p;
    p.name = std::string(w.size() > 1 ? w[1] : "");
    if (w.size() == 3 && lookup_scalar_type(w[2], p.type)) {
    } else if (w.size() == 5 && w[2] == "bytes") {
      p.type = DataType{"bytes", parse_u32(line, col, w[3], "struct size"), parse_u32(line, col, w[4], "struct alignment")};
      if (p.type.size == 0 || p.type.align == 0 || (p.type.align & (p.type.align - 1)) || p.type.align > 16)
        fail(line, col, "struct parameters need a positive size and a power-of-two alignment up to 16");
    } else {
      fail(line, col, "usage: .param NAME TYPE (u8 s8 u16 s16 u32 s32 u64 s64 f32 f64 b8..b64) or .param NAME bytes SIZE ALIGN");
    }
    if (!is_ident(p.name)) fail(line, col, fmt::format("'{}' is not a valid parameter name", p.name));
    for (const auto& q : k.params)
      if (q.name == p.name) fail(line, col, fmt::format("parameter '{}' is declared twice", p.name));
    const uint32_t end = k.param_end();
    p.offset = (end + p.type.align - 1) / p.type.align * p.type.align;
    if (p.offset + p.type.size > isa::gen::kC0Params + isa::gen::kMaxParamBytes)
      fail(line, col, fmt::format("kernel parameters exceed {} bytes", isa::gen::kMaxParamBytes));
    k.params.push_back(std::move(p));
  }

  // .const / .literal / .global NAME TYPE[COUNT] [= v, v, ... | = "string"]
  void data(int line, int col, const std::string& d, std::string_view text) {
    const std::string usage = fmt::format("usage: {} NAME TYPE[COUNT] [= VALUE, ...]", d);
    std::string_view rest = trim(text.substr(d.size()));
    std::string_view init;
    if (const size_t eq = rest.find('='); eq != std::string_view::npos) {
      init = trim(rest.substr(eq + 1));
      rest = trim(rest.substr(0, eq));
    }
    const size_t sp = rest.find_first_of(" \t");
    if (sp == std::string_view::npos) fail(line, col, usage);
    DataSymbol s;
    s.name = std::string(rest.substr(0, sp));
    std::string_view type = trim(rest.substr(sp));
    if (const size_t br = type.find('['); br != std::string_view::npos) {
      if (type.back() != ']') fail(line, col, usage);
      s.count = parse_u32(line, col, type.substr(br + 1, type.size() - br - 2), "element count");
      type = type.substr(0, br);
    }
    if (!is_ident(s.name)) fail(line, col, fmt::format("'{}' is not a valid symbol name", s.name));
    if (!lookup_scalar_type(type, s.type)) fail(line, col, fmt::format("unknown data type '{}'", type));
    if (s.count == 0 || uint64_t{s.count} * s.type.size > isa::gen::kCbankBytes)
      fail(line, col, fmt::format("{} elements of {} do not fit a 64 KiB space", s.count, s.type.name));
    if (data_names_.count(s.name)) fail(line, col, fmt::format("symbol '{}' is defined twice", s.name));
    const std::vector<uint8_t> bytes = initializer(line, col, s, init);

    std::vector<uint8_t>* image;
    if (d == ".global") {
      image = &m_.global_data;
      s.bank = isa::gen::kCbankLiterals;
    } else {
      s.bank = d == ".const" ? isa::gen::kCbankUser : isa::gen::kCbankLiterals;
      image = &m_.cbanks[s.bank];
    }
    s.offset = static_cast<uint32_t>((image->size() + s.type.align - 1) / s.type.align * s.type.align);
    image->resize(s.offset);
    image->insert(image->end(), bytes.begin(), bytes.end());
    if (d != ".global" && image->size() > isa::gen::kCbankBytes) fail(line, col, fmt::format("constant bank {} overflows 64 KiB", s.bank));
    if (d == ".global") {
      m_.globals.push_back(s);
    } else {
      symbols_[s.name] = {s.bank, s.offset};
      m_.consts.push_back(s);
    }
    data_names_.insert(s.name);
  }

  std::vector<uint8_t> initializer(int line, int col, const DataSymbol& s, std::string_view init) const {
    std::vector<uint8_t> out(s.bytes(), 0);
    if (init.empty()) return out;
    if (init.front() == '"') {
      if (s.type.size != 1) fail(line, col, "string initializers need a byte type (u8, s8, b8)");
      std::vector<uint8_t> str;
      size_t i = 1;
      for (; i < init.size() && init[i] != '"'; ++i) {
        char c = init[i];
        if (c == '\\' && i + 1 < init.size()) {
          const char e = init[++i];
          if (e == 'n') c = '\n';
          else if (e == 't') c = '\t';
          else if (e == '0') c = '\0';
          else if (e == 'x' && i + 2 < init.size()) {
            c = static_cast<char>(std::strtol(std::string(init.substr(i + 1, 2)).c_str(), nullptr, 16));
            i += 2;
          } else c = e;
        }
        str.push_back(static_cast<uint8_t>(c));
      }
      if (i >= init.size() || trim(init.substr(i + 1)).size() != 0) fail(line, col, "unterminated string initializer");
      if (str.size() > out.size()) fail(line, col, fmt::format("string of {} bytes does not fit {}[{}]", str.size(), s.type.name, s.count));
      std::copy(str.begin(), str.end(), out.begin());
      return out;
    }
    const auto items = split_operands(init);
    if (items.size() > s.count) fail(line, col, fmt::format("{} initializers for {} elements", items.size(), s.count));
    for (size_t i = 0; i < items.size(); ++i) {
      uint64_t bits;
      const std::string_view v = items[i].first;
      if (s.type.is_float()) {
        auto f = parse_float_bits(v, s.type.size == 8);
        if (!f) {
          auto iv = parse_int(v);
          if (!iv) fail(line, col, fmt::format("'{}' is not a number", v));
          f = s.type.size == 8 ? std::bit_cast<uint64_t>(static_cast<double>(*iv)) : std::bit_cast<uint32_t>(static_cast<float>(*iv));
        }
        bits = *f;
      } else {
        auto iv = parse_int(v);
        const unsigned b = s.type.size * 8;
        const int64_t lo = b == 64 ? INT64_MIN : -(int64_t{1} << (b - 1));  // -2^63 itself: its negation overflows
        const bool fits = iv && (b == 64 || (*iv >= lo && *iv < (int64_t{1} << b)));
        if (!fits) fail(line, col, fmt::format("'{}' does not fit type {}", v, s.type.name));
        bits = static_cast<uint64_t>(*iv);
      }
      for (unsigned b = 0; b < s.type.size; ++b) out[i * s.type.size + b] = static_cast<uint8_t>(bits >> (8 * b));
    }
    return out;
  }

  // Global variables get a 64-bit address slot in the literal bank, after the literals.
  void place_global_slots() {
    if (m_.globals.empty()) return;
    auto& bank = m_.cbanks[isa::gen::kCbankLiterals];
    for (auto& g : m_.globals) {
      g.slot = static_cast<uint32_t>((bank.size() + 7) / 8 * 8);
      bank.resize(g.slot + 8, 0);
      symbols_[g.name] = {isa::gen::kCbankLiterals, g.slot};
    }
  }

  // ---- pass 2: encoding -----------------------------------------------------------------------
  struct Ctx {
    const Pending& p;
    int col;  // column of the current token
  };

  uint64_t encode(const Pending& p) {
    std::string_view s = p.text;
    int col = p.col;
    auto advance = [&](size_t n) {
      s.remove_prefix(n);
      col += static_cast<int>(n);
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) {
        s.remove_prefix(1);
        ++col;
      }
    };
    uint64_t word = isa::set(0, Field::pg, isa::kPT);
    if (!s.empty() && s.front() == '@') {
      size_t e = 1;
      while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e]))) ++e;
      std::string_view g = s.substr(1, e - 1);
      const bool neg = !g.empty() && g.front() == '!';
      if (neg) g.remove_prefix(1);
      auto pr = parse_pred(g);
      if (!pr) fail(p.line, col, fmt::format("bad guard '{}': expected @P0..@P6, @PT or a negated form like @!P0", s.substr(0, e)));
      word = isa::set(isa::set(word, Field::pg, *pr), Field::pgn, neg);
      advance(e);
    }
    size_t e = 0;
    while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e]))) ++e;
    const std::string head = upper(s.substr(0, e));
    const int head_col = col;
    advance(e);
    std::vector<std::string> parts;
    for (size_t a = 0, b; a <= head.size(); a = b + 1) {
      b = head.find('.', a);
      if (b == std::string::npos) b = head.size();
      parts.push_back(head.substr(a, b - a));
    }
    const InsnInfo* in = isa::find_mnemonic(parts[0]);
    if (!in) fail(p.line, head_col, fmt::format("unknown instruction '{}'", parts[0]));
    word = isa::set(word, Field::op, in->opcode);
    word = apply_suffixes(p, head_col, *in, parts, word);

    const auto ops = s.empty() ? std::vector<std::pair<std::string_view, size_t>>{} : split_operands(s);
    unsigned required = in->num_operands;
    while (required > 0 && in->operands[required - 1].optional) --required;
    if (ops.size() < required || ops.size() > in->num_operands) {
      const std::string count = required == in->num_operands ? fmt::format("{}", required) : fmt::format("{} to {}", required, in->num_operands);
      fail(p.line, head_col, fmt::format("{} takes {} operands, got {}", in->mnemonic, count, ops.size()));
    }
    for (unsigned i = 0; i < in->num_operands; ++i) {
      const OperandInfo& op = in->operands[i];
      if (i >= ops.size()) {  // omitted optional operand: its default
        if (op.kind == OperandKind::Pred) word = isa::set(word, op.field, isa::kPT);
        continue;
      }
      word = operand(Ctx{p, col + static_cast<int>(ops[i].second)}, *in, op, ops[i].first, word);
    }
    const auto d = isa::decode(word);
    if (!d) fail(p.line, head_col, d.error);
    return word;
  }

  uint64_t apply_suffixes(const Pending& p, int col, const InsnInfo& in, const std::vector<std::string>& parts, uint64_t word) const {
    std::vector<bool> assigned(in.num_mods, false);
    for (size_t k = 1; k < parts.size(); ++k) {
      const std::string& tok = parts[k];
      bool ok = false;
      for (unsigned i = 0; i < in.num_mods && !ok; ++i) {
        if (assigned[i]) continue;
        const FieldInfo& fi = isa::field_info(in.mods[i]);
        if (fi.kind == FieldKind::Flag) {
          if (tok == fi.suffix) {
            word = isa::set(word, in.mods[i], 1);
            ok = assigned[i] = true;
          }
          continue;
        }
        const auto& e = isa::enum_info(fi.enum_id);
        for (unsigned v = 0; v < e.count; ++v) {
          if (tok == e.values[v]) {
            word = isa::set(word, in.mods[i], v);
            ok = assigned[i] = true;
            break;
          }
        }
      }
      if (!ok) fail(p.line, col, fmt::format("{} does not take suffix .{} (or takes it once){}", in.mnemonic, tok, suffix_help(in)));
    }
    for (unsigned i = 0; i < in.num_mods; ++i) {
      const FieldInfo& fi = isa::field_info(in.mods[i]);
      if (assigned[i] || fi.kind == FieldKind::Flag) continue;
      if (fi.default_value >= 0) {
        word = isa::set(word, in.mods[i], static_cast<uint64_t>(fi.default_value));
        continue;
      }
      fail(p.line, col, fmt::format("{} needs a {} suffix{}", in.mnemonic, fi.name, suffix_help(in)));
    }
    return word;
  }

  static std::string suffix_help(const InsnInfo& in) {
    std::string s = "; suffixes:";
    for (unsigned i = 0; i < in.num_mods; ++i) {
      const FieldInfo& fi = isa::field_info(in.mods[i]);
      if (fi.kind == FieldKind::Flag) {
        s += fmt::format(" [.{}]", fi.suffix);
        continue;
      }
      const auto& e = isa::enum_info(fi.enum_id);
      std::string alts;
      for (unsigned v = 0; v < e.count; ++v) alts += (v ? "|" : "") + std::string(e.values[v]);
      s += fi.default_value >= 0 ? fmt::format(" [.{}]", alts) : fmt::format(" .{{{}}}", alts);
    }
    return s;
  }

  // Strip -, ~ and |..| decorations, checking the operand allows them.
  std::string_view decorations(const Ctx& c, const InsnInfo& in, const OperandInfo& op, std::string_view s, uint64_t& word,
                               bool immediate_ok) const {
    auto deny = [&](const char* what) { fail(c.p.line, c.col, fmt::format("this operand of {} cannot be {}", in.mnemonic, what)); };
    auto is_value_start = [&](std::string_view t) {
      return immediate_ok && !t.empty() && t[0] != '(' && (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '.' || upper(t) == "INF");
    };
    if (!s.empty() && s.front() == '~') {
      if (op.inv == Field::None) deny("inverted (~)");
      word = isa::set(word, op.inv, 1);
      s.remove_prefix(1);
    }
    if (!s.empty() && s.front() == '-' && !is_value_start(s.substr(1))) {
      if (op.neg == Field::None) deny("negated (-)");
      word = isa::set(word, op.neg, 1);
      s.remove_prefix(1);
    }
    if (!s.empty() && s.front() == '|') {
      if (op.abs == Field::None) deny("an absolute value (|x|)");
      if (s.size() < 3 || s.back() != '|') fail(c.p.line, c.col, "unterminated |x|");
      word = isa::set(word, op.abs, 1);
      s = s.substr(1, s.size() - 2);
    }
    if (!s.empty() && s.front() == '(') {  // a decorated immediate: -(5), ~(0x10)
      if (s.back() != ')') fail(c.p.line, c.col, "unterminated (");
      s = s.substr(1, s.size() - 2);
    }
    return trim(s);
  }

  uint64_t reg_field(const Ctx& c, std::string_view s, Field f, uint64_t word) const {
    auto r = parse_reg(s);
    if (!r) fail(c.p.line, c.col, fmt::format("expected a register (R0..R254 or RZ), got '{}'", s));
    return isa::set(word, f, *r);
  }

  int64_t symbol_offset(const Ctx& c, std::string_view expr, uint32_t bank) const {
    expr = trim(expr);
    if (auto v = parse_int(expr)) return *v;
    size_t split = expr.find_first_of("+-");
    const std::string name(trim(expr.substr(0, split)));
    int64_t add = 0;
    if (split != std::string_view::npos) {
      auto v = parse_int(expr.substr(split));
      if (!v) fail(c.p.line, c.col, fmt::format("bad offset expression '{}'", expr));
      add = *v;
    }
    if (c.p.kernel >= 0) {
      for (const auto& prm : m_.kernels[static_cast<size_t>(c.p.kernel)].params) {
        if (prm.name != name) continue;
        if (bank != isa::gen::kCbankLaunch) fail(c.p.line, c.col, fmt::format("parameter '{}' lives in c[0], not c[{}]", name, bank));
        return prm.offset + add;
      }
    }
    auto it = symbols_.find(name);
    if (it == symbols_.end()) fail(c.p.line, c.col, fmt::format("unknown symbol '{}' (not a parameter of this kernel, constant, literal or global)", name));
    if (it->second.bank != bank) fail(c.p.line, c.col, fmt::format("'{}' lives in c[{}], not c[{}]", name, it->second.bank, bank));
    return it->second.offset + add;
  }

  // c[BANK][rest] -> (bank, rest)
  std::pair<uint32_t, std::string_view> const_ref(const Ctx& c, std::string_view s) const {
    const std::string u = upper(s.substr(0, 2));
    const size_t close = s.find(']');
    if (u != "C[" || close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != '[' || s.back() != ']')
      fail(c.p.line, c.col, fmt::format("expected c[bank][offset], got '{}'", s));
    auto bank = parse_int(s.substr(2, close - 2));
    if (!bank || *bank < 0 || *bank >= static_cast<int64_t>(isa::gen::kNumCbanks))
      fail(c.p.line, c.col, fmt::format("constant bank must be 0..{}", isa::gen::kNumCbanks - 1));
    return {static_cast<uint32_t>(*bank), s.substr(close + 2, s.size() - close - 3)};
  }

  uint64_t set_checked(const Ctx& c, uint64_t word, Field f, int64_t v, bool is_signed, std::string_view what) const {
    const unsigned w = isa::field_info(f).width;
    const int64_t lo = is_signed ? -(int64_t{1} << (w - 1)) : 0;
    const int64_t hi = is_signed ? (int64_t{1} << (w - 1)) - 1 : (int64_t{1} << w) - 1;
    if (v < lo || v > hi) fail(c.p.line, c.col, fmt::format("{} {} is out of range {}..{}", what, v, lo, hi));
    return isa::set(word, f, static_cast<uint64_t>(v));
  }

  uint64_t operand(const Ctx& c, const InsnInfo& in, const OperandInfo& op, std::string_view s, uint64_t word) const {
    if (s.empty()) fail(c.p.line, c.col, "missing operand");
    switch (op.kind) {
      case OperandKind::Reg: {
        const std::string_view name = decorations(c, in, op, s, word, false);
        return reg_field(c, name, op.field, word);
      }
      case OperandKind::Pred: {
        if (s.front() == '!') {
          if (op.pneg == Field::None) fail(c.p.line, c.col, fmt::format("this predicate of {} cannot be negated", in.mnemonic));
          word = isa::set(word, op.pneg, 1);
          s.remove_prefix(1);
        }
        auto pr = parse_pred(s);
        if (!pr) fail(c.p.line, c.col, fmt::format("expected a predicate (P0..P6 or PT), got '{}'", s));
        return isa::set(word, op.field, *pr);
      }
      case OperandKind::B: return operand_b(c, in, op, s, word);
      case OperandKind::Imm32: {
        uint64_t bits;
        if (looks_like_float(s)) {
          auto f = parse_float_bits(s, false);
          if (!f) fail(c.p.line, c.col, fmt::format("bad float literal '{}'", s));
          bits = *f;
        } else {
          auto v = parse_int(s);
          if (!v || *v < INT32_MIN || *v > UINT32_MAX) fail(c.p.line, c.col, fmt::format("expected a 32-bit value, got '{}'", s));
          bits = static_cast<uint32_t>(*v);
        }
        return isa::set(word, Field::imm32, bits);
      }
      case OperandKind::Mem: {
        if (s.front() != '[' || s.back() != ']') fail(c.p.line, c.col, fmt::format("expected a memory operand [Ra+offset], got '{}'", s));
        std::string_view inner = trim(s.substr(1, s.size() - 2));
        std::string_view base = inner, off;
        if (const size_t pm = inner.find_first_of("+-"); pm != std::string_view::npos) {
          base = trim(inner.substr(0, pm));
          off = inner.substr(pm);
        }
        if (base.empty() || !parse_reg(base)) {  // [offset] means [RZ+offset]
          if (!base.empty() && !parse_int(base)) fail(c.p.line, c.col, fmt::format("expected [Ra+offset], got '{}'", s));
          off = inner;
          base = "RZ";
        }
        word = reg_field(c, base, op.field, word);
        if (off.empty()) return word;
        auto v = parse_int(off);
        if (!v) fail(c.p.line, c.col, fmt::format("bad memory offset '{}'", off));
        if (op.no_offset) {
          if (*v != 0) fail(c.p.line, c.col, fmt::format("{} takes no address offset; add it to the address register", in.mnemonic));
          return word;
        }
        return set_checked(c, word, Field::moff, *v, true, "memory offset");
      }
      case OperandKind::Cmem: {
        auto [bank, inner] = const_ref(c, s);
        word = isa::set(word, Field::cbank, bank);
        std::string_view base = inner, off;
        if (const size_t pm = inner.find_first_of("+-"); pm != std::string_view::npos) {
          base = trim(inner.substr(0, pm));
          off = inner.substr(pm + (inner[pm] == '+' ? 1 : 0));
        }
        word = reg_field(c, base, op.field, word);
        return off.empty() ? word : set_checked(c, word, Field::coff, symbol_offset(c, off, bank), false, "constant offset");
      }
      case OperandKind::Label: {
        int64_t rel;
        if (s.front() == '+' || s.front() == '-') {
          auto v = parse_int(s);
          if (!v) fail(c.p.line, c.col, fmt::format("bad relative target '{}'", s));
          rel = *v;
        } else {
          auto it = labels_.find(std::string(s));
          if (it == labels_.end()) fail(c.p.line, c.col, fmt::format("undefined label '{}'", s));
          rel = static_cast<int64_t>(it->second) - static_cast<int64_t>(c.p.pc);
        }
        return set_checked(c, word, Field::target, rel, true, "branch offset");
      }
      case OperandKind::Uimm: {
        auto v = parse_int(s);
        if (!v) fail(c.p.line, c.col, fmt::format("expected a number, got '{}'", s));
        return set_checked(c, word, op.field, *v, false, isa::field_info(op.field).name);
      }
      case OperandKind::Sreg: {
        const std::string u = upper(s);
        const auto& e = isa::enum_info(isa::field_info(op.field).enum_id);
        for (unsigned v = 0; v < e.count; ++v)
          if (u == "SR_" + std::string(e.values[v])) return isa::set(word, op.field, v);
        fail(c.p.line, c.col, fmt::format("unknown special register '{}' (e.g. SR_TID_X, SR_CTAID_Y, SR_LANEID, SR_CLOCK)", s));
      }
    }
    fail(c.p.line, c.col, "unsupported operand kind");
  }

  uint64_t operand_b(const Ctx& c, const InsnInfo& in, const OperandInfo& op, std::string_view s, uint64_t word) const {
    s = decorations(c, in, op, s, word, true);
    const std::string u = upper(s);
    if (parse_reg(s)) {
      word = isa::set(word, Field::bsel, static_cast<uint64_t>(Bsel::REG));
      return reg_field(c, s, Field::rb, word);
    }
    if (u.rfind("C[", 0) == 0) {
      auto [bank, inner] = const_ref(c, s);
      word = isa::set(word, Field::bsel, static_cast<uint64_t>(Bsel::CONST));
      word = isa::set(word, Field::cbank, bank);
      return set_checked(c, word, Field::coff, symbol_offset(c, inner, bank), false, "constant offset");
    }
    word = isa::set(word, Field::bsel, static_cast<uint64_t>(Bsel::IMM));
    const unsigned w = isa::field_info(Field::imm20).width;
    if (op.imm == ImmKind::F32 || op.imm == ImmKind::F64) {
      const bool f64 = op.imm == ImmKind::F64;
      auto bits = parse_float_bits(s, f64);
      if (!bits) {
        auto iv = parse_int(s);
        if (!iv) fail(c.p.line, c.col, fmt::format("expected a register, c[bank][offset] or a float immediate, got '{}'", s));
        bits = f64 ? std::bit_cast<uint64_t>(static_cast<double>(*iv)) : std::bit_cast<uint32_t>(static_cast<float>(*iv));
      }
      const unsigned low = (f64 ? 64 : 32) - w;
      if (*bits & ((uint64_t{1} << low) - 1))
        fail(c.p.line, c.col, fmt::format("{} has non-zero low {} bits and does not fit a 20-bit float immediate; use MOV32I or a constant bank", s, low));
      return isa::set(word, Field::imm20, *bits >> low);
    }
    auto v = parse_int(s);
    if (!v) fail(c.p.line, c.col, fmt::format("expected a register, c[bank][offset] or an integer immediate, got '{}'", s));
    if (*v < -(int64_t{1} << (w - 1)) || *v >= (int64_t{1} << (w - 1)))
      fail(c.p.line, c.col, fmt::format("immediate {} does not fit 20 signed bits; use MOV32I or a constant bank", s));
    return isa::set(word, Field::imm20, static_cast<uint64_t>(*v));
  }

  // Kernels without .regs use one more than the highest register their instructions name.
  void infer_register_counts() {
    for (size_t k = 0; k < m_.kernels.size(); ++k) {
      if (regs_explicit_[k]) continue;
      unsigned top = 1;
      for (const auto& p : pending_) {
        if (p.kernel != static_cast<int>(k)) continue;
        const uint64_t w = m_.text[p.pc];
        const InsnInfo& in = *isa::decode(w).insn;
        for (unsigned i = 0; i < in.num_operands; ++i) {
          const auto& op = in.operands[i];
          uint64_t r = isa::kRZ;
          if (op.kind == OperandKind::Reg || op.kind == OperandKind::Mem || op.kind == OperandKind::Cmem) r = isa::get(w, op.field);
          if (op.kind == OperandKind::B && isa::b_source(w) == Bsel::REG) r = isa::get(w, Field::rb);
          if (r != isa::kRZ) top = std::max(top, static_cast<unsigned>(r) + isa::operand_width(op, w));
        }
      }
      m_.kernels[k].regs = top;
    }
  }

  std::string file_;
  Module m_;
  std::map<std::string, uint32_t> labels_;
  std::map<std::string, SymbolRef> symbols_;
  std::set<std::string> data_names_;
  std::vector<Pending> pending_;
  std::vector<bool> regs_explicit_;
};

// ---- module disassembly -------------------------------------------------------------------------
std::string type_decl(const DataType& t) { return t.name == "bytes" ? fmt::format("bytes {} {}", t.size, t.align) : t.name; }

std::string data_values(const DataSymbol& s, const std::vector<uint8_t>& image) {
  uint32_t last = 0;  // elements up to the last non-zero one
  for (uint32_t i = 0; i < s.count; ++i)
    for (uint32_t b = 0; b < s.type.size; ++b)
      if (image[s.offset + i * s.type.size + b]) last = i + 1;
  std::string out;
  for (uint32_t i = 0; i < last; ++i) {
    uint64_t bits = 0;
    for (uint32_t b = 0; b < s.type.size; ++b) bits |= uint64_t{image[s.offset + i * s.type.size + b]} << (8 * b);
    std::string v;
    if (s.type.name == "f32") v = isa::format_f32(static_cast<uint32_t>(bits));
    else if (s.type.name == "f64") v = isa::format_f64(bits);
    else if (s.type.is_signed()) v = fmt::format("{}", isa::sign_extend(bits, s.type.size * 8));
    else v = fmt::format("{}", bits);
    out += (i ? ", " : " = ") + v;
  }
  return out;
}

// Constant-bank symbols visible to one kernel's code: its parameters, constants, global slots.
class ConstSymbols {
 public:
  ConstSymbols(const Module& m, const KernelInfo* kernel) {
    if (kernel)
      for (const auto& p : kernel->params) add(isa::gen::kCbankLaunch, p.offset, p.type.size, p.name);
    for (const auto& c : m.consts) add(c.bank, c.offset, c.bytes(), c.name);
    for (const auto& g : m.globals) add(g.bank, g.slot, 8, g.name);
  }
  std::string operator()(uint32_t bank, uint32_t offset) const {
    for (const auto& s : symbols_) {
      if (s.bank != bank || offset < s.offset || offset >= s.offset + s.size) continue;
      return offset == s.offset ? s.name : fmt::format("{}+{:#x}", s.name, offset - s.offset);
    }
    return "";
  }

 private:
  struct Symbol {
    uint32_t bank, offset, size;
    std::string name;
  };
  void add(uint32_t bank, uint32_t offset, uint32_t size, const std::string& name) { symbols_.push_back({bank, offset, size, name}); }
  std::vector<Symbol> symbols_;
};

}  // namespace

Module assemble(std::string_view source, std::string_view filename) { return Assembler(filename).run(source); }

uint64_t assemble_instruction(std::string_view line) { return Assembler("<instruction>").instruction(line); }

std::string disassemble_module(const Module& m) {
  std::string out = fmt::format("// TeslaSM module: {} instructions, {} kernel(s)\n.version {}\n", m.text.size(), m.kernels.size(),
                                isa::gen::kIsaVersion);
  for (const auto& s : m.consts) {
    if (s.bank != isa::gen::kCbankUser && s.bank != isa::gen::kCbankLiterals)
      throw FormatError(fmt::format("constant '{}' in bank {} has no assembly form", s.name, s.bank));
    out += fmt::format("{} {} {}[{}]{}\n", s.bank == isa::gen::kCbankUser ? ".const" : ".literal", s.name, s.type.name, s.count,
                       data_values(s, m.cbanks.at(s.bank)));
  }
  for (const auto& s : m.globals) out += fmt::format(".global {} {}[{}]{}\n", s.name, s.type.name, s.count, data_values(s, m.global_data));

  std::map<int64_t, std::string> names;
  for (const auto& f : m.functions) names.emplace(f.entry, f.name);
  for (const auto& k : m.kernels) names.emplace(k.entry, k.name);
  std::set<int64_t> targets;
  for (size_t pc = 0; pc < m.text.size(); ++pc) {
    const auto d = isa::decode(m.text[pc]);
    for (unsigned i = 0; d && i < d.insn->num_operands; ++i)
      if (d.insn->operands[i].kind == OperandKind::Label) targets.insert(isa::branch_target(m.text[pc], static_cast<int64_t>(pc)));
  }
  auto namer = [&](int64_t t) {
    auto it = names.find(t);
    return it != names.end() ? it->second : fmt::format("L_{}", t);
  };
  ConstSymbols consts(m, nullptr);  // symbols the code at pc can name: its kernel's parameters and more
  for (size_t pc = 0; pc < m.text.size(); ++pc) {
    for (const auto& k : m.kernels) {
      if (k.entry != pc) continue;
      consts = ConstSymbols(m, &k);
      out += fmt::format("\n.kernel {}\n.regs {}\n.shared {}\n.local {}\n", k.name, k.regs, k.shared_bytes, k.local_bytes);
      for (const auto& p : k.params) out += fmt::format(".param {} {}  // c[0][{:#x}]\n", p.name, type_decl(p.type), p.offset);
    }
    for (const auto& f : m.functions)
      if (f.entry == pc) out += fmt::format("\n.func {}\n", f.name);
    if (targets.count(static_cast<int64_t>(pc)) && !names.count(static_cast<int64_t>(pc))) out += fmt::format("L_{}:\n", pc);
    out += fmt::format("    {:<48} // {:04}: {:016x}\n", isa::disassemble(m.text[pc], static_cast<int64_t>(pc), namer, consts), pc,
                       m.text[pc]);
  }
  return out;
}

}  // namespace tsm
