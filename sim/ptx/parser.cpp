// The PTX parser: tokens (lexer.hpp) to the AST (ast.hpp). A recursive-descent parser over the
// module grammar of the PTX ISA as nvcc and clang emit it. It flattens nested { } blocks, renaming
// what they declare, skips debug directives, and finally checks that every name an instruction
// uses is declared, so that the translator only sees modules whose names all resolve.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "ptx/ast.hpp"
#include "ptx/lexer.hpp"

namespace tsm::ptx {

PtxError::PtxError(const std::string& file_name, Loc where, const std::string& text)
    : std::runtime_error(fmt::format("{}:{}:{}: error: {}", file_name, where.line, where.col, text)),
      file(file_name),
      loc(where),
      message(text) {}

std::string Type::str() const {
  switch (kind) {
    case Kind::B: return fmt::format("b{}", bits);
    case Kind::U: return fmt::format("u{}", bits);
    case Kind::S: return fmt::format("s{}", bits);
    case Kind::F: return fmt::format("f{}", bits);
    case Kind::Pred: return "pred";
  }
  return "?";
}

namespace {

// Deeper nesting than this is certainly not compiler output; the limit keeps recursion bounded.
constexpr int kMaxBlockDepth = 64;
constexpr int kMaxInitDepth = 16;
// A register range declared inside a nested block is expanded into single names to rename them.
constexpr uint64_t kMaxNestedRange = 1u << 16;
constexpr uint64_t kMaxRange = 1u << 24;
constexpr uint64_t kMaxArrayBytes = uint64_t{1} << 40;

// Every PTX instruction name up to ISA 9.0; modifiers follow as dot tokens.
const std::unordered_set<std::string_view>& opcodes() {
  // clang-format off
  static const std::unordered_set<std::string_view> names = {
      "abs", "activemask", "add", "addc", "alloca", "and", "applypriority", "atom", "bar", "barrier",
      "bfe", "bfi", "bfind", "bmsk", "bra", "brev", "brkpt", "brx", "call", "clusterlaunchcontrol", "clz",
      "cnot", "copysign", "cos", "cp", "createpolicy", "cvt", "cvta", "discard", "div", "dp2a", "dp4a",
      "elect", "ex2", "exit", "fence", "fma", "fns", "getctarank", "griddepcontrol", "isspacep",
      "istypeof", "ld", "ldmatrix", "ldu", "lg2", "lop3", "mad", "mad24", "madc", "mapa", "match",
      "max", "mbarrier", "membar", "min", "mma", "mov", "movmatrix", "mul", "mul24", "multimem",
      "nanosleep", "neg", "not", "or", "pmevent", "popc", "prefetch", "prefetchu", "prmt", "rcp", "red",
      "redux", "rem", "ret", "rsqrt", "sad", "selp", "set", "setmaxnreg", "setp", "shf", "shfl", "shl",
      "shr", "sin", "slct", "sqrt", "st", "stackrestore", "stacksave", "stmatrix", "sub", "subc", "suld",
      "suq", "sured", "sust", "szext", "tanh", "tcgen05", "tensormap", "testp", "tex", "tld4", "trap",
      "txq", "vabsdiff", "vabsdiff2", "vabsdiff4", "vadd", "vadd2", "vadd4", "vavrg2", "vavrg4", "vmad",
      "vmax", "vmax2", "vmax4", "vmin", "vmin2", "vmin4", "vote", "vset", "vset2", "vset4", "vshl", "vshr",
      "vsub", "vsub2", "vsub4", "wgmma", "wmma", "xor"};
  // clang-format on
  return names;
}

// Special registers without components; %pmN, %pmN_64 and %envregN are matched by pattern.
const std::unordered_set<std::string_view>& special_registers() {
  // clang-format off
  static const std::unordered_set<std::string_view> names = {
      "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid", "%lanemask_eq", "%lanemask_le",
      "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%clock", "%clock64", "%clock_hi", "%globaltimer",
      "%globaltimer_lo", "%globaltimer_hi", "%dynamic_smem_size", "%total_smem_size", "%aggr_smem_size",
      "%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap",
      "%reserved_smem_offset_0", "%reserved_smem_offset_1", "%current_graph_exec",
      "%is_explicit_cluster", "%cluster_ctarank", "%cluster_nctarank"};
  // clang-format on
  return names;
}

// Special registers read per component: %tid.x, %ctaid.y, ...
const std::unordered_set<std::string_view>& vector_special_registers() {
  static const std::unordered_set<std::string_view> names = {
      "%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid"};
  return names;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_numbered(std::string_view name, std::string_view prefix, unsigned limit) {
  if (name.substr(0, prefix.size()) != prefix) return false;
  std::string_view digits = name.substr(prefix.size());
  if (!all_digits(digits) || digits.size() > 2) return false;
  return static_cast<unsigned>(std::atoi(std::string(digits).c_str())) < limit;
}

bool is_special(std::string_view name) {
  if (special_registers().count(name) || vector_special_registers().count(name)) return true;
  if (is_numbered(name, "%envreg", 32)) return true;
  if (name.size() > 3 && name.substr(name.size() - 3) == "_64") name.remove_suffix(3);
  return is_numbered(name, "%pm", 8);
}

struct ScalarType {
  Type type;
  bool ok = false;
};

// Declaration types. Packed and narrow float formats keep their storage width as .b types: the
// AST's Type has no kind for them, and instructions carry the real format in their modifiers.
ScalarType type_of(std::string_view dot) {
  using K = Type::Kind;
  // clang-format off
  static const std::unordered_map<std::string_view, Type> types = {
      {".b8", {K::B, 8}},     {".b16", {K::B, 16}},    {".b32", {K::B, 32}},     {".b64", {K::B, 64}},
      {".b128", {K::B, 128}}, {".u8", {K::U, 8}},      {".u16", {K::U, 16}},     {".u32", {K::U, 32}},
      {".u64", {K::U, 64}},   {".s8", {K::S, 8}},      {".s16", {K::S, 16}},     {".s32", {K::S, 32}},
      {".s64", {K::S, 64}},   {".f16", {K::F, 16}},    {".f32", {K::F, 32}},     {".f64", {K::F, 64}},
      {".pred", {K::Pred, 1}}, {".f16x2", {K::B, 32}}, {".bf16", {K::B, 16}},    {".bf16x2", {K::B, 32}},
      {".tf32", {K::B, 32}},  {".e4m3x2", {K::B, 16}}, {".e5m2x2", {K::B, 16}},
  };
  // clang-format on
  auto it = types.find(dot);
  if (it == types.end()) return {};
  return {it->second, true};
}

bool space_of(std::string_view dot, Space& space) {
  // clang-format off
  static const std::unordered_map<std::string_view, Space> spaces = {
      {".reg", Space::Reg},       {".param", Space::Param}, {".global", Space::Global},
      {".shared", Space::Shared}, {".local", Space::Local}, {".const", Space::Const},
  };
  // clang-format on
  auto it = spaces.find(dot);
  if (it == spaces.end()) return false;
  space = it->second;
  return true;
}

const char* space_name(Space space) {
  switch (space) {
    case Space::Reg: return ".reg";
    case Space::SReg: return ".sreg";
    case Space::Param: return ".param";
    case Space::Global: return ".global";
    case Space::Shared: return ".shared";
    case Space::Local: return ".local";
    case Space::Const: return ".const";
    case Space::Generic: return "generic";
  }
  return "?";
}

// The names a function's instructions may use, gathered once its body is parsed.
struct FunctionScope {
  std::unordered_set<std::string> regs;
  std::unordered_map<std::string, uint64_t> ranges;  // "%r" -> 10 for %r<10>
  std::unordered_set<std::string> vars;              // params, returns, non-register variables
  std::unordered_set<std::string> labels;

  bool is_reg(const std::string& name) const {
    if (regs.count(name)) return true;
    size_t digits = name.size();
    while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
    if (digits == name.size() || name.size() - digits > 10) return false;
    auto it = ranges.find(name.substr(0, digits));
    if (it == ranges.end()) return false;
    if (name[digits] == '0' && name.size() - digits > 1) return false;  // %r05 is not %r5
    return std::stoull(name.substr(digits)) < it->second;
  }
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string file) : tokens_(std::move(tokens)), file_(std::move(file)) {}

  Module run() {
    module_.file = file_;
    if (!peek().is_dot(".version")) unexpected(peek(), "'.version' at the start of the module");
    parse_version();
    while (peek().kind != Token::Kind::End) parse_module_item();
    if (module_.target.empty()) fail(peek().loc, "the module has no '.target' directive");
    resolve_names();
    return std::move(module_);
  }

 private:
  // ---- token helpers ----
  const Token& peek(size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
  const Token& take() {
    const Token& token = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return token;
  }
  bool accept(char c) {
    if (!peek().is(c)) return false;
    take();
    return true;
  }
  bool accept_dot(std::string_view name) {
    if (!peek().is_dot(name)) return false;
    take();
    return true;
  }
  [[noreturn]] void fail(Loc loc, const std::string& message) const { throw PtxError(file_, loc, message); }
  [[noreturn]] void unexpected(const Token& token, std::string_view expected) const {
    fail(token.loc, fmt::format("expected {}, found {}", expected, describe(token)));
  }
  const Token& expect(char c, std::string_view context) {
    if (!peek().is(c)) unexpected(peek(), fmt::format("'{}' {}", c, context));
    return take();
  }
  const Token& expect_ident(std::string_view what) {
    if (peek().kind != Token::Kind::Ident) unexpected(peek(), what);
    return take();
  }
  uint64_t expect_int(std::string_view what) {
    if (peek().kind != Token::Kind::Int) unexpected(peek(), what);
    return take().value;
  }
  // A 32-bit count such as a thread-block size or an alignment.
  uint32_t expect_u32(std::string_view what) {
    const Token& token = peek();
    uint64_t value = expect_int(what);
    if (value > UINT32_MAX) {
      fail(token.loc, fmt::format("{} does not fit in 32 bits (expected {})", describe(token), what));
    }
    return static_cast<uint32_t>(value);
  }

  // ---- skipped directives ----
  // .loc and .file end at the end of their line (.loc has no semicolon).
  void skip_line() {
    int line = take().loc.line;
    while (peek().kind != Token::Kind::End && peek().loc.line == line) take();
  }
  void skip_pragma() {
    take();
    do {
      if (peek().kind != Token::Kind::String) unexpected(peek(), "a string after '.pragma'");
      take();
    } while (accept(','));
    expect(';', "after '.pragma'");
  }
  // .section .debug_xxx { ... }: DWARF data the simulator does not use.
  void skip_section() {
    Loc open = take().loc;
    if (peek().kind != Token::Kind::Dot && peek().kind != Token::Kind::Ident) {
      unexpected(peek(), "a section name after '.section'");
    }
    take();
    expect('{', "after the section name");
    int depth = 1;
    while (depth > 0) {
      const Token& token = take();
      if (token.kind == Token::Kind::End) {
        unexpected(token, fmt::format("'}}' to close the '.section' at {}:{}", open.line, open.col));
      }
      if (token.is('{')) ++depth;
      if (token.is('}')) --depth;
    }
  }

  // ---- module ----
  void parse_version() {
    take();
    const Token& number = peek();
    std::string_view text = number.text;
    size_t dot = text.find('.');
    if (number.kind != Token::Kind::Decimal || dot == std::string_view::npos || !all_digits(text.substr(0, dot)) ||
        !all_digits(text.substr(dot + 1)) || dot > 3 || text.size() - dot > 4) {
      unexpected(number, "a version number such as 9.0 after '.version'");
    }
    module_.version_major = static_cast<unsigned>(std::atoi(std::string(text.substr(0, dot)).c_str()));
    module_.version_minor = static_cast<unsigned>(std::atoi(std::string(text.substr(dot + 1)).c_str()));
    take();
  }

  void parse_target() {
    Loc loc = take().loc;
    if (!module_.target.empty()) fail(loc, "duplicate '.target' directive");
    module_.target = std::string(expect_ident("a target name such as sm_75 after '.target'").text);
    while (accept(',')) {
      const Token& option =
          expect_ident("a target option (texmode_unified, texmode_independent, debug, map_f64_to_f32)");
      static const std::unordered_set<std::string_view> options = {"texmode_unified", "texmode_independent", "debug",
                                                                   "map_f64_to_f32"};
      if (!options.count(option.text)) fail(option.loc, fmt::format("unknown target option {}", describe(option)));
    }
  }

  void parse_address_size() {
    take();
    const Token& token = peek();
    uint64_t size = expect_int("32 or 64 after '.address_size'");
    if (size != 32 && size != 64) {
      fail(token.loc, fmt::format("address size must be 32 or 64, found {}", describe(token)));
    }
    module_.address_size = static_cast<unsigned>(size);
  }

  void parse_module_item() {
    const Token& token = peek();
    if (token.kind != Token::Kind::Dot) unexpected(token, "a directive at module scope");
    if (token.text == ".target") return parse_target();
    if (token.text == ".address_size") return parse_address_size();
    if (token.text == ".version") fail(token.loc, "duplicate '.version' directive");
    if (token.text == ".file" || token.text == ".loc") return skip_line();
    if (token.text == ".section") return skip_section();
    if (token.text == ".pragma") return skip_pragma();

    Loc loc = token.loc;
    bool visible = false;
    bool is_extern = false;
    while (true) {
      if (accept_dot(".visible")) {
        visible = true;
      } else if (accept_dot(".extern")) {
        is_extern = true;
      } else if (accept_dot(".weak") || accept_dot(".common")) {
        visible = true;  // weak and common symbols are externally visible too
      } else {
        break;
      }
    }
    const Token& what = peek();
    if (what.is_dot(".entry") || what.is_dot(".func")) return parse_function(loc, visible, is_extern);
    Space space{};
    if (what.kind == Token::Kind::Dot && space_of(what.text, space)) {
      if (space == Space::Reg || space == Space::Param) {
        fail(what.loc, fmt::format("'{}' variables can only be declared inside a function", what.text));
      }
      take();
      for (VarDecl& decl : parse_declaration(space, loc, /*nested=*/false)) {
        decl.is_extern = is_extern;
        decl.is_visible = visible;
        add_global(std::move(decl));
      }
      expect(';', "after declaration");
      return;
    }
    if (loc.line == what.loc.line && loc.col == what.loc.col) {
      fail(what.loc, fmt::format("unknown directive {} at module scope", describe(what)));
    }
    unexpected(what, "'.entry', '.func' or a state space such as '.global' after the linkage directive");
  }

  void add_global(VarDecl decl) {
    if (function_index_.count(decl.name)) {
      fail(decl.loc, fmt::format("'{}' is already declared as a function", decl.name));
    }
    auto it = global_index_.find(decl.name);
    if (it == global_index_.end()) {
      global_index_[decl.name] = module_.globals.size();
      module_.globals.push_back(std::move(decl));
      return;
    }
    VarDecl& old = module_.globals[it->second];
    if (decl.is_extern) return;  // a re-declaration of something already known
    if (!old.is_extern) fail(decl.loc, fmt::format("redefinition of '{}'", decl.name));
    old = std::move(decl);
  }

  // ---- declarations ----
  // The attributes of a declaration after its state space: .align, .vN, .ptr, the type.
  VarDecl parse_decl_attributes(Space space, Loc loc, bool param) {
    VarDecl decl;
    decl.space = space;
    decl.loc = loc;
    bool have_type = false;
    while (peek().kind == Token::Kind::Dot) {
      const Token& token = peek();
      if (token.text == ".align") {
        take();
        decl.align = parse_alignment();
      } else if (token.text == ".v2" || token.text == ".v4" || token.text == ".v8") {
        if (decl.vector != 1) fail(token.loc, "a declaration can have only one vector size");
        decl.vector = static_cast<unsigned>(token.text[2] - '0');
        take();
      } else if (token.text == ".ptr" && param) {
        take();
        decl.ptr = true;
        Space pointee{};
        if (peek().kind == Token::Kind::Dot && space_of(peek().text, pointee)) {
          if (pointee == Space::Reg || pointee == Space::Param) {
            fail(peek().loc, fmt::format("a '.ptr' cannot point to '{}'", peek().text));
          }
          decl.ptr_space = pointee;
          take();
        }
        if (accept_dot(".align")) parse_alignment();  // the pointee's alignment: not recorded
      } else if (ScalarType scalar = type_of(token.text); scalar.ok) {
        if (have_type) {
          fail(token.loc, fmt::format("a declaration can have only one type, found a second: {}", describe(token)));
        }
        decl.type = scalar.type;
        have_type = true;
        take();
      } else {
        break;
      }
    }
    if (!have_type) unexpected(peek(), "a type such as .b32, .u64, .f32 or .pred in the declaration");
    if (decl.vector != 1 && decl.type.kind == Type::Kind::Pred) fail(loc, "'.pred' variables cannot be vectors");
    return decl;
  }

  uint32_t parse_alignment() {
    const Token& token = peek();
    uint32_t align = expect_u32("an alignment after '.align'");
    if (align == 0 || !std::has_single_bit(align)) {
      fail(token.loc, fmt::format("alignment must be a power of two, found {}", describe(token)));
    }
    return align;
  }

  // The declared name with its register range or array dimensions (no initializer).
  void parse_declarator(VarDecl& decl) {
    const Token& name = expect_ident("a variable name in the declaration");
    if (name.text == "_") fail(name.loc, "'_' cannot be declared");
    decl.name = std::string(name.text);
    decl.loc = name.loc;
    if (accept('<')) {
      const Token& count = peek();
      if (decl.space != Space::Reg) fail(count.loc, "register ranges '<N>' are only allowed in '.reg' declarations");
      uint64_t range = expect_int("a register count after '<'");
      if (range == 0 || range > kMaxRange) {
        fail(count.loc, fmt::format("register range must be between 1 and {}, found {}", kMaxRange, describe(count)));
      }
      decl.range = static_cast<unsigned>(range);
      expect('>', "to close the register range");
    }
    uint64_t elements = decl.vector;
    uint64_t bytes = std::max(1u, decl.type.bits / 8);
    while (peek().is('[')) {
      Loc open = take().loc;
      if (decl.range != 0) fail(open, "a register range cannot also be an array");
      if (accept(']')) {
        if (!decl.dims.empty()) fail(open, "only the first array dimension can be left unsized");
        decl.dims.push_back(0);
        continue;
      }
      const Token& size = peek();
      uint64_t n = expect_int("an array size or ']'");
      if (n == 0) fail(size.loc, "array dimension must be positive");
      if (n > kMaxArrayBytes / bytes / elements) {
        fail(size.loc, fmt::format("array '{}' is too large", decl.name));
      }
      elements *= n;
      decl.dims.push_back(n);
      expect(']', "to close the array dimension");
    }
  }

  // A declaration after its state space; several names may share the attributes.
  std::vector<VarDecl> parse_declaration(Space space, Loc loc, bool nested) {
    VarDecl proto = parse_decl_attributes(space, loc, /*param=*/false);
    std::vector<VarDecl> decls;
    do {
      VarDecl decl = proto;
      parse_declarator(decl);
      if (peek().is('=')) {
        if (space != Space::Global && space != Space::Const) {
          fail(peek().loc, fmt::format("initializers are only allowed for .global and .const variables, not {}",
                                       space_name(space)));
        }
        take();
        parse_initializer(decl);
      }
      if (nested) {
        rename_nested(decl, decls);
      } else {
        decls.push_back(std::move(decl));
      }
    } while (accept(','));
    return decls;
  }

  // ---- initializers ----
  void parse_initializer(VarDecl& decl) {
    decl.has_init = true;
    if (peek().is('{')) {
      parse_init_list(decl, 0);
    } else {
      parse_init_element(decl);
    }
    uint64_t per_row = decl.vector;
    for (size_t i = 1; i < decl.dims.size(); ++i) per_row *= decl.dims[i];
    uint64_t count = decl.init.size();
    if (!decl.dims.empty() && decl.dims[0] == 0) decl.dims[0] = std::max<uint64_t>(1, (count + per_row - 1) / per_row);
    uint64_t total = decl.dims.empty() ? per_row : per_row * decl.dims[0];
    if (count > total) {
      fail(decl.loc,
           fmt::format("too many initializers for '{}': {} given, it has {} elements", decl.name, count, total));
    }
  }

  void parse_init_list(VarDecl& decl, int depth) {
    Loc open = take().loc;
    if (depth >= kMaxInitDepth) fail(open, "initializer braces nested too deeply");
    if (accept('}')) return;
    do {
      if (peek().is('{')) {
        parse_init_list(decl, depth + 1);
      } else {
        parse_init_element(decl);
      }
    } while (accept(','));
    if (!peek().is('}')) {
      unexpected(peek(), fmt::format("',' or '}}' in the initializer opened at {}:{}", open.line, open.col));
    }
    take();
  }

  void parse_init_element(VarDecl& decl) {
    bool negative = accept('-');
    const Token& token = peek();
    const Type& type = decl.type;
    if (type.kind == Type::Kind::Pred) fail(token.loc, "'.pred' variables cannot have initializers");
    if (token.kind == Token::Kind::Ident && !negative) {
      take();
      std::string symbol;
      if (token.text == "generic" && accept('(')) {
        symbol = std::string(expect_ident("a variable name inside 'generic(...)'").text);
        expect(')', "to close 'generic('");
      } else {
        symbol = std::string(token.text);
      }
      if (type.bits < 32) fail(token.loc, fmt::format("an address needs a 32- or 64-bit type, not .{}", type.str()));
      int64_t offset = 0;
      if (peek().is('+') || peek().is('-')) {
        bool minus = take().is('-');
        offset = parse_offset(minus);
      }
      push_init(decl, static_cast<uint64_t>(offset), symbol);
      return;
    }
    if (token.kind == Token::Kind::Int && peek(1).is('(') && !negative) {
      parse_masked_address(decl);
    } else if (token.kind == Token::Kind::Int) {
      take();
      push_init(decl, int_bits(token, negative, type), "");
    } else if (token.kind == Token::Kind::FloatBits || token.kind == Token::Kind::Decimal) {
      take();
      push_init(decl, float_bits(token, negative, type), "");
    } else {
      unexpected(token, negative ? std::string_view("a number after '-'") : std::string_view("an initializer value"));
    }
  }

  // 0xFF00(generic(sym)): one byte of an address, as nvcc writes pointers into packed structs.
  void parse_masked_address(VarDecl& decl) {
    const Token& mask = take();
    take();  // '('
    bool byte_mask = false;
    for (unsigned shift = 0; shift < 64; shift += 8) byte_mask |= mask.value == uint64_t{0xFF} << shift;
    if (!byte_mask) {
      fail(mask.loc, fmt::format("an address mask must select one byte (0xFF, 0xFF00, ...), found {}", describe(mask)));
    }
    std::string symbol;
    if (peek().kind == Token::Kind::Ident && peek().text == "generic" && peek(1).is('(')) {
      take();
      take();
      symbol = std::string(expect_ident("a variable name inside 'generic(...)'").text);
      expect(')', "to close 'generic('");
    } else {
      symbol = std::string(expect_ident("a variable name inside the address mask").text);
    }
    int64_t offset = 0;  // 0xFF00(generic(sym)+4)
    if (peek().is('+') || peek().is('-')) {
      const bool minus = take().is('-');
      offset = parse_offset(minus);
    }
    expect(')', "to close the address mask");
    push_init(decl, static_cast<uint64_t>(offset), std::move(symbol), mask.value);
  }

  // init_symbols and init_masks always have one entry per element ("" and 0 for a number).
  void push_init(VarDecl& decl, uint64_t bits, std::string symbol, uint64_t mask = 0) {
    decl.init.push_back(bits);
    decl.init_symbols.push_back(std::move(symbol));
    decl.init_masks.push_back(mask);
  }

  uint64_t int_bits(const Token& token, bool negative, const Type& type) const {
    uint64_t magnitude = token.value;
    if (type.kind == Type::Kind::F) {
      if (type.bits == 16) {
        fail(token.loc, "initializers for .f16 variables are not supported; declare the bits as .b16");
      }
      if (negative && magnitude > (uint64_t{1} << 63)) {
        fail(token.loc, fmt::format("initializer -{} does not fit in 64 bits", token.text));
      }
      double value = negative ? -static_cast<double>(magnitude) : static_cast<double>(magnitude);
      if (type.bits == 32) return std::bit_cast<uint32_t>(static_cast<float>(value));
      return std::bit_cast<uint64_t>(value);
    }
    unsigned bits = std::min(type.bits, 64u);
    uint64_t limit_neg = uint64_t{1} << (bits - 1);
    uint64_t limit_pos = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    if ((negative && magnitude > limit_neg) || (!negative && magnitude > limit_pos)) {
      fail(token.loc, fmt::format("initializer {}{} does not fit in .{}", negative ? "-" : "", token.text, type.str()));
    }
    uint64_t value = negative ? ~magnitude + 1 : magnitude;
    return bits == 64 ? value : value & limit_pos;
  }

  uint64_t float_bits(const Token& token, bool negative, const Type& type) const {
    bool is_float = type.kind == Type::Kind::F;
    if (token.kind == Token::Kind::FloatBits) {
      unsigned width = token.f64 ? 64 : 32;
      uint64_t bits = token.value;
      if (negative) bits ^= uint64_t{1} << (width - 1);
      if (type.bits == width) return bits;
      if (is_float && type.bits == 64) {
        return std::bit_cast<uint64_t>(static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits))));
      }
      if (is_float && type.bits == 32) return std::bit_cast<uint32_t>(static_cast<float>(std::bit_cast<double>(bits)));
      fail(token.loc, fmt::format("a {}-bit floating-point literal does not fit .{}", width, type.str()));
    }
    if (!is_float || type.bits == 16) {
      fail(token.loc,
           fmt::format("decimal literal {} needs an .f32 or .f64 variable, not .{}", describe(token), type.str()));
    }
    double value = std::strtod(std::string(token.text).c_str(), nullptr);
    if (negative) value = -value;
    if (type.bits == 32) return std::bit_cast<uint32_t>(static_cast<float>(value));
    return std::bit_cast<uint64_t>(value);
  }

  // An integer after '+' or '-' in an address or initializer.
  int64_t parse_offset(bool minus) {
    if (!minus && accept('-')) minus = true;
    const Token& token = peek();
    uint64_t magnitude = expect_int(minus ? "an offset after '-'" : "an offset after '+'");
    if (magnitude > (minus ? uint64_t{1} << 63 : uint64_t{INT64_MAX})) {
      fail(token.loc, fmt::format("offset {} does not fit in 64 bits", describe(token)));
    }
    return minus ? static_cast<int64_t>(~magnitude + 1) : static_cast<int64_t>(magnitude);
  }

  // ---- functions ----
  void parse_function(Loc loc, bool visible, bool is_extern) {
    Function fn;
    fn.loc = loc;
    fn.is_entry = take().text == ".entry";
    fn.is_visible = visible;
    if (!fn.is_entry && peek().is('(')) fn.returns = parse_param_list(/*entry=*/false, "return value list");
    const Token& name = expect_ident(fn.is_entry ? "a kernel name after '.entry'" : "a function name");
    fn.name = std::string(name.text);
    if (peek().is('(')) fn.params = parse_param_list(fn.is_entry, "parameter list");
    parse_performance_directives(fn);
    if (accept(';')) {
      fn.is_extern = true;
    } else if (peek().is('{')) {
      if (is_extern) fail(loc, fmt::format("'.extern' function '{}' cannot have a body", fn.name));
      parse_body(fn);
    } else {
      unexpected(peek(), "'{' or ';' after the function header");
    }
    add_function(std::move(fn), name.loc);
  }

  void add_function(Function fn, Loc name_loc) {
    if (global_index_.count(fn.name)) fail(name_loc, fmt::format("'{}' is already declared as a variable", fn.name));
    auto it = function_index_.find(fn.name);
    if (it == function_index_.end()) {
      function_index_[fn.name] = module_.functions.size();
      module_.functions.push_back(std::move(fn));
      return;
    }
    Function& old = module_.functions[it->second];
    if (fn.is_extern) return;  // a prototype of something already known
    if (!old.is_extern) fail(name_loc, fmt::format("redefinition of function '{}'", fn.name));
    fn.is_visible = fn.is_visible || old.is_visible;
    old = std::move(fn);  // the definition replaces the earlier prototype in place
  }

  std::vector<VarDecl> parse_param_list(bool entry, std::string_view what) {
    Loc open = take().loc;
    std::vector<VarDecl> params;
    if (accept(')')) return params;
    do {
      const Token& token = peek();
      Space space{};
      if (token.is_dot(".param")) {
        space = Space::Param;
      } else if (token.is_dot(".reg") && !entry) {
        space = Space::Reg;
      } else {
        unexpected(token, entry ? "'.param' in the kernel parameter list" : "'.param' or '.reg' in the parameter list");
      }
      take();
      VarDecl decl = parse_decl_attributes(space, token.loc, /*param=*/true);
      parse_declarator(decl);
      if (decl.range != 0) fail(decl.loc, "a parameter cannot be a register range");
      params.push_back(std::move(decl));
    } while (accept(','));
    if (!peek().is(')')) {
      unexpected(peek(), fmt::format("',' or ')' in the {} opened at {}:{}", what, open.line, open.col));
    }
    take();
    return params;
  }

  void parse_dims(uint32_t (&dims)[3], std::string_view directive) {
    take();
    dims[0] = expect_u32(fmt::format("a thread count after '{}'", directive));
    for (int i = 1; i < 3 && accept(','); ++i) dims[i] = expect_u32(fmt::format("a thread count in '{}'", directive));
    for (int i = 1; i < 3; ++i) {
      if (dims[i] == 0) dims[i] = 1;
    }
  }

  void parse_performance_directives(Function& fn) {
    uint32_t ignored[3] = {0, 0, 0};
    while (peek().kind == Token::Kind::Dot) {
      std::string_view directive = peek().text;
      if (directive == ".maxntid") {
        parse_dims(fn.maxntid, directive);
      } else if (directive == ".reqntid") {
        parse_dims(fn.reqntid, directive);
      } else if (directive == ".reqnctapercluster") {
        parse_dims(ignored, directive);
      } else if (directive == ".minnctapersm") {
        take();
        fn.minnctapersm = expect_u32("a block count after '.minnctapersm'");
      } else if (directive == ".maxnreg") {
        take();
        fn.maxnreg = expect_u32("a register count after '.maxnreg'");
      } else if (directive == ".maxnctapersm" || directive == ".maxclusterrank") {
        take();
        expect_u32(fmt::format("a count after '{}'", directive));
      } else if (directive == ".noreturn" || directive == ".explicitcluster") {
        take();
      } else if (directive == ".pragma") {
        skip_pragma();
      } else {
        fail(peek().loc, fmt::format("unknown directive {} in the function header", describe(peek())));
      }
    }
  }

  // ---- function bodies ----
  void parse_body(Function& fn) {
    fn_ = &fn;
    scopes_.clear();
    block_count_ = 0;
    labels_.clear();
    names_.clear();
    for (const VarDecl& param : fn.params) names_.insert(param.name);
    for (const VarDecl& ret : fn.returns) names_.insert(ret.name);
    Loc open = take().loc;
    parse_block(open, 0);
    fn_ = nullptr;
  }

  void parse_block(Loc open, int depth) {
    while (true) {
      const Token& token = peek();
      if (token.is('}')) {
        take();
        return;
      }
      if (token.kind == Token::Kind::End) {
        unexpected(token, fmt::format("'}}' to close the block opened at {}:{}", open.line, open.col));
      }
      if (token.is('{')) {
        take();
        if (depth + 1 >= kMaxBlockDepth) fail(token.loc, "blocks nested too deeply");
        scopes_.push_back({++block_count_, {}});
        parse_block(token.loc, depth + 1);
        scopes_.pop_back();
      } else if (token.kind == Token::Kind::Dot) {
        parse_body_directive(depth > 0);
      } else if (token.kind == Token::Kind::Ident && peek(1).is(':')) {
        parse_label();
      } else if (token.kind == Token::Kind::Ident || token.is('@')) {
        parse_instruction();
      } else {
        unexpected(token, "an instruction, a declaration, a label or '}'");
      }
    }
  }

  void parse_body_directive(bool nested) {
    const Token& token = peek();
    if (token.text == ".loc" || token.text == ".file") return skip_line();
    if (token.text == ".pragma") return skip_pragma();
    Space space{};
    if (!space_of(token.text, space)) {
      fail(token.loc, fmt::format("unknown directive {} in a function body", describe(token)));
    }
    take();
    for (VarDecl& decl : parse_declaration(space, token.loc, nested)) add_local(std::move(decl));
    expect(';', "after declaration");
  }

  void add_local(VarDecl decl) {
    if (!names_.insert(decl.name).second) fail(decl.loc, fmt::format("redefinition of '{}'", decl.name));
    fn_->decls.push_back(std::move(decl));
  }

  // Names declared in a nested block get the block's suffix ("param0" -> "param0$3"); register
  // ranges are expanded so that each register can be renamed.
  void rename_nested(VarDecl& decl, std::vector<VarDecl>& out) {
    Scope& scope = scopes_.back();
    auto rename_one = [&](const std::string& name) {
      if (scope.renames.count(name)) fail(decl.loc, fmt::format("redefinition of '{}' in the same block", name));
      std::string unique = fmt::format("{}${}", name, scope.id);
      while (names_.count(unique)) unique += "_";
      scope.renames[name] = unique;
      return unique;
    };
    if (decl.range == 0) {
      decl.name = rename_one(decl.name);
      out.push_back(std::move(decl));
      return;
    }
    if (decl.range > kMaxNestedRange) {
      fail(decl.loc, fmt::format("register range {} is too large for a nested block", decl.range));
    }
    std::string prefix = decl.name;
    for (unsigned i = 0; i < decl.range; ++i) {
      VarDecl one = decl;
      one.range = 0;
      one.name = rename_one(fmt::format("{}{}", prefix, i));
      out.push_back(std::move(one));
    }
  }

  std::string resolve(std::string_view name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->renames.find(std::string(name));
      if (found != it->renames.end()) return found->second;
    }
    return std::string(name);
  }

  void parse_label() {
    const Token& name = take();
    take();  // ':'
    if (name.text == "_" || name.text[0] == '%') fail(name.loc, fmt::format("{} cannot be a label", describe(name)));
    if (!labels_.insert(std::string(name.text)).second) {
      fail(name.loc, fmt::format("redefinition of label {}", describe(name)));
    }
    // Prototypes and branch/call target lists are labels with a directive; they are only referenced.
    const Token& next = peek();
    if (next.is_dot(".callprototype") || next.is_dot(".calltargets") || next.is_dot(".branchtargets")) {
      while (!peek().is(';')) {
        if (peek().kind == Token::Kind::End || peek().is('}')) {
          unexpected(peek(), fmt::format("';' after {}", next.text));
        }
        take();
      }
      take();
      symbol_labels_[fn_->name].insert(std::string(name.text));
      return;
    }
    Statement statement;
    statement.kind = Statement::Kind::Label;
    statement.label = std::string(name.text);
    statement.loc = name.loc;
    fn_->body.push_back(std::move(statement));
  }

  void parse_instruction() {
    Instruction ins;
    ins.loc = peek().loc;
    if (accept('@')) {
      ins.guard_neg = accept('!');
      const Token& guard =
          expect_ident(ins.guard_neg ? "a predicate register after '@!'" : "a predicate register after '@'");
      ins.guard = resolve(guard.text);
    }
    const Token& opcode = peek();
    if (opcode.kind != Token::Kind::Ident) unexpected(opcode, "an instruction after the guard predicate");
    if (!opcodes().count(opcode.text)) fail(opcode.loc, fmt::format("unknown instruction {}", describe(opcode)));
    take();
    ins.opcode = std::string(opcode.text);
    while (peek().kind == Token::Kind::Dot && !peek().space_before) {
      ins.mods.push_back(std::string(take().text.substr(1)));
    }
    // Instructions without operands: a name on the next line is a missing ';', not an operand.
    static const std::unordered_set<std::string_view> no_operands = {"ret", "exit", "trap", "brkpt", "membar"};
    if (ins.opcode == "call") {
      parse_call_operands(ins);
    } else if (!peek().is(';') && !no_operands.count(ins.opcode)) {
      do {
        ins.operands.push_back(parse_operand(false));
      } while (accept(','));
    }
    expect(';', "after instruction");
    Statement statement;
    statement.kind = Statement::Kind::Instr;
    statement.loc = ins.loc;
    statement.instr = std::move(ins);
    fn_->body.push_back(std::move(statement));
  }

  // call (ret), callee, (args) [, prototype]; the return list and arguments may be absent.
  void parse_call_operands(Instruction& ins) {
    Operand rets;
    rets.kind = Operand::Kind::Vector;
    rets.loc = peek().loc;
    if (peek().is('(')) {
      rets = parse_paren_list("return value list");
      expect(',', "after the call's return value list");
    }
    const Token& callee = peek();
    if (callee.kind != Token::Kind::Ident) unexpected(callee, "the called function's name");
    Operand target = parse_operand(false);
    if (target.kind != Operand::Kind::Reg) unexpected(callee, "the called function's name");
    Operand args;
    args.kind = Operand::Kind::Vector;
    args.loc = peek().loc;
    ins.operands = {rets, target};
    if (accept(',')) {
      if (!peek().is('(')) unexpected(peek(), "'(' to open the call's argument list");
      args = parse_paren_list("argument list");
      ins.operands.push_back(args);
      if (accept(',')) {
        const Token& proto = expect_ident("a prototype or target-list label after the arguments");
        Operand symbol;
        symbol.kind = Operand::Kind::Symbol;
        symbol.name = std::string(proto.text);
        symbol.loc = proto.loc;
        ins.operands.push_back(symbol);
      }
    } else {
      ins.operands.push_back(args);
    }
  }

  Operand parse_paren_list(std::string_view what) {
    Operand list;
    list.kind = Operand::Kind::Vector;
    Loc open = take().loc;
    list.loc = open;
    if (accept(')')) return list;
    do {
      list.elems.push_back(parse_operand(true));
    } while (accept(','));
    if (!peek().is(')')) {
      unexpected(peek(), fmt::format("',' or ')' in the call's {} opened at {}:{}", what, open.line, open.col));
    }
    take();
    return list;
  }

  Operand parse_operand(bool in_list) {
    const Token& token = peek();
    Operand op;
    op.loc = token.loc;
    if (token.is('[')) return parse_address(in_list);
    if (token.is('{')) {
      if (in_list) fail(token.loc, "vectors cannot be nested");
      take();
      op.kind = Operand::Kind::Vector;
      do {
        op.elems.push_back(parse_operand(true));
      } while (accept(','));
      if (!peek().is('}')) {
        unexpected(peek(), fmt::format("',' or '}}' in the vector opened at {}:{}", token.loc.line, token.loc.col));
      }
      take();
      return op;
    }
    if (token.is('!')) {
      take();
      const Token& name = expect_ident("a predicate register after '!'");
      op.kind = Operand::Kind::Reg;
      op.name = resolve(name.text);
      op.neg = true;
      return op;
    }
    bool negative = false;
    if (token.is('-')) {
      take();
      negative = true;
      Token::Kind next = peek().kind;
      if (next != Token::Kind::Int && next != Token::Kind::FloatBits && next != Token::Kind::Decimal) {
        unexpected(peek(), "a number after '-'");
      }
    }
    const Token& value = peek();
    switch (value.kind) {
      case Token::Kind::Int:
        take();
        op.kind = Operand::Kind::Imm;
        op.imm = static_cast<int64_t>(negative ? ~value.value + 1 : value.value);
        return op;
      case Token::Kind::FloatBits:
        take();
        op.kind = Operand::Kind::FImm;
        op.f64 = value.f64;
        op.fbits = value.value ^ (negative ? uint64_t{1} << (value.f64 ? 63 : 31) : 0);
        return op;
      case Token::Kind::Decimal: {
        take();
        double d = std::strtod(std::string(value.text).c_str(), nullptr);
        op.kind = Operand::Kind::FImm;
        op.f64 = true;
        op.fbits = std::bit_cast<uint64_t>(negative ? -d : d);
        return op;
      }
      case Token::Kind::Ident: take(); return parse_name_operand(value, in_list);
      default: unexpected(value, "an operand");
    }
  }

  Operand parse_name_operand(const Token& name, bool in_list) {
    Operand op;
    op.loc = name.loc;
    if (name.text == "_") {
      op.kind = Operand::Kind::Discard;
      return op;
    }
    std::string text(name.text);
    const Token& next = peek();
    if (text[0] == '%' && next.kind == Token::Kind::Dot && !next.space_before) {
      std::string_view component = next.text.substr(1);
      bool xyz = component == "x" || component == "y" || component == "z";
      if (vector_special_registers().count(text)) {
        if (!xyz) {
          fail(next.loc, fmt::format("expected component .x, .y or .z of '{}', found {}", text, describe(next)));
        }
        take();
        op.kind = Operand::Kind::Special;
        op.name = fmt::format("{}.{}", text, component);
        return op;
      }
      static const std::unordered_set<std::string_view> elements = {"x", "y", "z", "w", "r", "g", "b", "a"};
      if (is_special(text) || !elements.count(component)) {
        unexpected(next, fmt::format("',' or ';' after '{}'", text));
      }
      take();  // an element of a vector register: %v1.x
      op.kind = Operand::Kind::Reg;
      op.name = fmt::format("{}.{}", resolve(text), component);
      return op;
    }
    if (is_special(text)) {
      op.kind = Operand::Kind::Special;
      op.name = text;
      return op;
    }
    op.kind = Operand::Kind::Reg;  // Reg or Symbol: resolve_names() decides once all names are known
    op.name = resolve(text);
    if (peek().is('|')) {  // a predicate pair: setp ... %p|%q
      take();
      const Token& second = expect_ident("a second predicate register after '|'");
      Operand pair;
      pair.kind = Operand::Kind::Vector;
      pair.loc = op.loc;
      pair.elems.push_back(op);
      Operand other;
      other.kind = Operand::Kind::Reg;
      other.name = resolve(second.text);
      other.loc = second.loc;
      pair.elems.push_back(other);
      return pair;
    }
    if (!in_list && (peek().is('+') || peek().is('-')) && text[0] != '%') {
      bool minus = take().is('-');
      op.kind = Operand::Kind::Symbol;  // sym+offset: an address constant
      op.imm = parse_offset(minus);
    }
    return op;
  }

  // [reg], [reg+off], [reg+-off], [reg-off], [sym], [sym+off], [off], [texref, {coords}]
  Operand parse_address(bool in_list) {
    Operand op;
    Loc open = take().loc;
    op.kind = Operand::Kind::Address;
    op.loc = open;
    const Token& token = peek();
    if (token.kind == Token::Kind::Int || token.is('-')) {
      bool minus = accept('-');
      op.imm = parse_offset(minus);
    } else if (token.kind == Token::Kind::Ident && token.text != "_" && !is_special(token.text)) {
      take();
      op.name = resolve(token.text);
      if (peek().is('+') || peek().is('-')) {
        bool minus = take().is('-');
        op.imm = parse_offset(minus);
      } else if (peek().is(',') && !in_list) {
        while (accept(',')) op.elems.push_back(parse_operand(false));
      }
    } else {
      unexpected(token, "a register, a variable name or an offset inside '['");
    }
    if (!peek().is(']')) {
      unexpected(peek(), fmt::format("']' to close the address opened at {}:{}", open.line, open.col));
    }
    take();
    return op;
  }

  // ---- name resolution ----
  void resolve_names() {
    std::unordered_set<std::string> module_names = {"WARP_SZ"};  // PTX's predefined constant
    for (const VarDecl& g : module_.globals) module_names.insert(g.name);
    for (const Function& f : module_.functions) module_names.insert(f.name);
    for (Function& fn : module_.functions) {
      FunctionScope scope;
      auto add = [&](const VarDecl& decl) {
        if (decl.space != Space::Reg) {
          scope.vars.insert(decl.name);
        } else if (decl.range != 0) {
          scope.ranges[decl.name] = decl.range;
        } else {
          scope.regs.insert(decl.name);
        }
      };
      for (const VarDecl& d : fn.params) add(d);
      for (const VarDecl& d : fn.returns) add(d);
      for (const VarDecl& d : fn.decls) add(d);
      for (const Statement& s : fn.body) {
        if (s.kind == Statement::Kind::Label) scope.labels.insert(s.label);
      }
      for (const std::string& label : symbol_labels_[fn.name]) scope.labels.insert(label);
      auto known = [&](const std::string& name) {
        return scope.vars.count(name) || scope.labels.count(name) || module_names.count(name);
      };
      for (Statement& s : fn.body) {
        if (s.kind != Statement::Kind::Instr) continue;
        Instruction& ins = s.instr;
        if (!ins.guard.empty() && !scope.is_reg(ins.guard)) {
          fail(ins.loc, fmt::format("guard '{}' is not a declared predicate register", ins.guard));
        }
        for (Operand& op : ins.operands) resolve_operand(op, scope, known);
      }
    }
  }

  template <typename Known>
  void resolve_operand(Operand& op, const FunctionScope& scope, const Known& known) const {
    switch (op.kind) {
      case Operand::Kind::Reg: {
        std::string base = op.name.substr(0, op.name.find('.'));
        if (scope.is_reg(base)) return;
        if (op.neg) {
          fail(op.loc, fmt::format("'!' needs a predicate register, '{}' is not a declared register", op.name));
        }
        if (base == op.name && known(op.name)) {
          op.kind = Operand::Kind::Symbol;
          return;
        }
        fail(op.loc, fmt::format("use of undeclared identifier '{}'", op.name));
      }
      case Operand::Kind::Symbol:
        if (scope.is_reg(op.name)) {
          fail(op.loc, fmt::format("register '{}' cannot take an offset outside '[ ]'", op.name));
        }
        if (!known(op.name)) fail(op.loc, fmt::format("use of undeclared identifier '{}'", op.name));
        return;
      case Operand::Kind::Address:
        if (!op.name.empty() && !scope.is_reg(op.name) && !known(op.name)) {
          fail(op.loc, fmt::format("use of undeclared identifier '{}' in address", op.name));
        }
        for (Operand& e : op.elems) resolve_operand(e, scope, known);
        return;
      case Operand::Kind::Vector:
        for (Operand& e : op.elems) resolve_operand(e, scope, known);
        return;
      default: return;
    }
  }

  struct Scope {
    int id = 0;
    std::unordered_map<std::string, std::string> renames;
  };

  std::vector<Token> tokens_;
  std::string file_;
  size_t pos_ = 0;
  Module module_;
  std::unordered_map<std::string, size_t> global_index_;
  std::unordered_map<std::string, size_t> function_index_;
  // Per function body being parsed.
  Function* fn_ = nullptr;
  std::vector<Scope> scopes_;
  int block_count_ = 0;
  std::unordered_set<std::string> labels_;
  std::unordered_set<std::string> names_;
  // Labels of .callprototype/.calltargets/.branchtargets lists, per function name: resolvable, but
  // they are no statements.
  std::unordered_map<std::string, std::unordered_set<std::string>> symbol_labels_;
};

}  // namespace

Module parse(std::string_view text, std::string_view file) {
  std::string name(file);
  std::vector<Token> tokens = lex(text, name);
  Module m = Parser(std::move(tokens), name).run();
  m.from_llvm = text.substr(0, 4096).find("Generated by LLVM NVPTX Back-End") != std::string_view::npos;
  return m;
}

}  // namespace tsm::ptx
