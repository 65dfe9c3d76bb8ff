// TeslaSM binary container: serialization, and a loader that validates every field it reads.
#include "module.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include "isa.hpp"

namespace tsm {

using json = nlohmann::ordered_json;

namespace {

struct ScalarType {
  const char* name;
  uint32_t size;
};
constexpr ScalarType kScalarTypes[] = {
    {"u8", 1},  {"s8", 1},  {"b8", 1},  {"u16", 2}, {"s16", 2}, {"b16", 2}, {"u32", 4},
    {"s32", 4}, {"b32", 4}, {"f32", 4}, {"u64", 8}, {"s64", 8}, {"b64", 8}, {"f64", 8},
};

bool is_identifier(std::string_view s) {
  if (s.empty() || s.size() > 255) return false;
  auto head = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; };
  if (!head(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return head(c) || std::isdigit(static_cast<unsigned char>(c)); });
}

bool ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen) { return a < b + blen && b < a + alen; }

uint32_t crc_of(std::span<const uint8_t> bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; our files are far below 4 GiB.
  crc = crc32(crc, bytes.data(), static_cast<uInt>(bytes.size()));
  return static_cast<uint32_t>(crc);
}

void put32(std::vector<uint8_t>& out, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void put16(std::vector<uint8_t>& out, size_t at, uint16_t v) {
  out[at] = static_cast<uint8_t>(v);
  out[at + 1] = static_cast<uint8_t>(v >> 8);
}
uint32_t get32(std::span<const uint8_t> in, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(in[at + i]) << (8 * i);
  return v;
}
uint16_t get16(std::span<const uint8_t> in, size_t at) {
  return static_cast<uint16_t>(in[at] | (in[at + 1] << 8));
}

json type_to_json(const DataType& t) {
  if (t.name == "bytes") return json{{"name", "bytes"}, {"size", t.size}, {"align", t.align}};
  return t.name;
}

// Reads typed fields out of the META JSON, naming the path of anything missing or mistyped.
class MetaReader {
 public:
  explicit MetaReader(std::string where) : where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw FormatError(fmt::format("{}: invalid binary: META {}: {}", where_, path, what));
  }
  const json& member(const json& obj, const std::string& path, const char* key) const {
    if (!obj.is_object()) fail(path, "must be an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(path + "." + key, "is missing");
    return *it;
  }
  uint32_t u32(const json& obj, const std::string& path, const char* key) const {
    const json& v = member(obj, path, key);
    if (!v.is_number_unsigned() || v.get<uint64_t>() > 0xFFFFFFFFull)
      fail(path + "." + key, "must be an unsigned 32-bit integer");
    return v.get<uint32_t>();
  }
  std::string name(const json& obj, const std::string& path) const {
    const json& v = member(obj, path, "name");
    if (!v.is_string() || !is_identifier(v.get<std::string>())) fail(path + ".name", "must be an identifier");
    return v.get<std::string>();
  }
  const json& array(const json& obj, const std::string& path, const char* key) const {
    const json& v = member(obj, path, key);
    if (!v.is_array()) fail(path + "." + key, "must be an array");
    return v;
  }
  DataType type(const json& obj, const std::string& path) const {
    const json& v = member(obj, path, "type");
    DataType t;
    if (v.is_string()) {
      if (!lookup_scalar_type(v.get<std::string>(), t)) fail(path + ".type", "unknown type '" + v.get<std::string>() + "'");
      return t;
    }
    const std::string p = path + ".type";
    if (!v.is_object() || member(v, p, "name") != "bytes") fail(p, "must be a scalar type name or {name: bytes, size, align}");
    t.name = "bytes";
    t.size = u32(v, p, "size");
    t.align = u32(v, p, "align");
    if (t.size == 0 || t.align == 0 || (t.align & (t.align - 1)) != 0 || t.align > 16)
      fail(p, fmt::format("size {} / align {}: size must be positive, align a power of two up to 16", t.size, t.align));
    return t;
  }

 private:
  std::string where_;
};

}  // namespace

bool lookup_scalar_type(std::string_view name, DataType& out) {
  for (const auto& t : kScalarTypes) {
    if (name == t.name) {
      out = DataType{t.name, t.size, t.size};
      return true;
    }
  }
  return false;
}

uint32_t KernelInfo::param_end() const {
  uint32_t end = isa::gen::kC0Params;
  for (const auto& p : params) end = std::max(end, p.offset + p.type.size);
  return end;
}

const KernelInfo* Module::find_kernel(std::string_view name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

void Module::validate(std::string_view where) const {
  auto fail = [&](const std::string& what) { throw FormatError(fmt::format("{}: invalid binary: {}", where, what)); };
  const uint64_t n = text.size();
  for (uint64_t pc = 0; pc < n; ++pc) {
    const auto d = isa::decode(text[pc]);
    if (!d) fail(fmt::format("instruction at PC {} ({:#018x}): {}", pc, text[pc], d.error));
    for (unsigned i = 0; i < d.insn->num_operands; ++i) {
      if (d.insn->operands[i].kind != isa::OperandKind::Label) continue;
      const int64_t t = isa::branch_target(text[pc], static_cast<int64_t>(pc));
      if (t < 0 || static_cast<uint64_t>(t) >= n)
        fail(fmt::format("PC {}: {} target {} is outside the code ({} instructions)", pc, d.insn->mnemonic, t, n));
    }
  }
  std::set<std::string> names;
  for (const auto& k : kernels) {
    if (!is_identifier(k.name)) fail(fmt::format("kernel name '{}' is not an identifier", k.name));
    if (!names.insert(k.name).second) fail(fmt::format("kernel '{}' is defined twice", k.name));
    if (k.entry >= n) fail(fmt::format("kernel '{}' entry PC {} is outside the code ({} instructions)", k.name, k.entry, n));
    if (k.regs == 0 || k.regs > isa::kRZ)
      fail(fmt::format("kernel '{}' uses {} registers per thread; allowed 1..{}", k.name, k.regs, isa::kRZ));
    if (k.local_bytes % 4 != 0) fail(fmt::format("kernel '{}' local bytes {} must be a multiple of 4", k.name, k.local_bytes));
    for (size_t i = 0; i < k.params.size(); ++i) {
      const auto& p = k.params[i];
      if (p.type.size == 0 || p.offset % p.type.align != 0 || p.offset < isa::gen::kC0Params)
        fail(fmt::format("kernel '{}' parameter '{}' at c[0][{:#x}] is misplaced or misaligned", k.name, p.name, p.offset));
      if (p.offset + p.type.size > isa::gen::kC0Params + isa::gen::kMaxParamBytes)
        fail(fmt::format("kernel '{}' parameters exceed {} bytes", k.name, isa::gen::kMaxParamBytes));
      for (size_t j = 0; j < i; ++j)
        if (ranges_overlap(p.offset, p.type.size, k.params[j].offset, k.params[j].type.size))
          fail(fmt::format("kernel '{}' parameters '{}' and '{}' overlap", k.name, k.params[j].name, p.name));
    }
  }
  for (const auto& f : functions) {
    if (!is_identifier(f.name)) fail(fmt::format("function name '{}' is not an identifier", f.name));
    if (!names.insert(f.name).second) fail(fmt::format("'{}' is defined twice", f.name));
    if (f.entry >= n) fail(fmt::format("function '{}' entry PC {} is outside the code", f.name, f.entry));
  }
  for (const auto& [bank, image] : cbanks) {
    if (bank == isa::gen::kCbankLaunch || bank >= isa::gen::kNumCbanks)
      fail(fmt::format("constant bank {} cannot be preloaded (banks 1..{})", bank, isa::gen::kNumCbanks - 1));
    if (image.size() > isa::gen::kCbankBytes) fail(fmt::format("constant bank {} holds {} bytes, more than 64 KiB", bank, image.size()));
  }
  auto check_symbol = [&](const DataSymbol& s, const char* kind, uint64_t limit, const char* space) {
    if (!is_identifier(s.name)) fail(fmt::format("{} name '{}' is not an identifier", kind, s.name));
    if (!names.insert(s.name).second) fail(fmt::format("'{}' is defined twice", s.name));
    if (s.count == 0 || s.offset % s.type.align != 0 || uint64_t{s.offset} + uint64_t{s.type.size} * s.count > limit)
      fail(fmt::format("{} '{}' ({} x {} at {:#x}) lies outside {} or is misaligned", kind, s.name, s.count, s.type.name, s.offset, space));
  };
  for (const auto& s : consts) {
    auto it = cbanks.find(s.bank);
    check_symbol(s, "constant", it == cbanks.end() ? 0 : it->second.size(), fmt::format("bank {}", s.bank).c_str());
  }
  const auto lit = cbanks.find(isa::gen::kCbankLiterals);
  for (const auto& s : globals) {
    check_symbol(s, "global", global_data.size(), "the global image");
    if (s.bank != isa::gen::kCbankLiterals || s.slot % 8 != 0 || lit == cbanks.end() || s.slot + 8 > lit->second.size())
      fail(fmt::format("global '{}' address slot c[{}][{:#x}] is misplaced", s.name, s.bank, s.slot));
  }
  auto find_global = [&](const std::string& name) -> const DataSymbol* {
    for (const auto& g : globals)
      if (g.name == name) return &g;
    return nullptr;
  };
  for (const auto& r : relocs) {
    const DataSymbol* g = find_global(r.global);
    if (!g) fail(fmt::format("relocation in '{}': no such global", r.global));
    if (!find_global(r.target)) fail(fmt::format("relocation in '{}': target '{}' is not a global", r.global, r.target));
    if (!(r.bytes == 1 || r.bytes == 2 || r.bytes == 4 || r.bytes == 8) || r.shift % 8 != 0 || r.shift > 56)
      fail(fmt::format("relocation in '{}': {} bytes shifted by {} is not a valid form", r.global, r.bytes, r.shift));
    if (uint64_t{r.at} + r.bytes > g->bytes())
      fail(fmt::format("relocation in '{}' at byte {} lies outside the variable ({} bytes)", r.global, r.at, g->bytes()));
  }
}

std::vector<uint8_t> Module::serialize() const {
  json meta;
  meta["kernels"] = json::array();
  for (const auto& k : kernels) {
    json params = json::array();
    for (const auto& p : k.params) params.push_back({{"name", p.name}, {"type", type_to_json(p.type)}, {"offset", p.offset}});
    meta["kernels"].push_back({{"name", k.name}, {"entry", k.entry}, {"regs", k.regs}, {"shared", k.shared_bytes},
                               {"local", k.local_bytes}, {"params", params}});
  }
  meta["functions"] = json::array();
  for (const auto& f : functions) meta["functions"].push_back({{"name", f.name}, {"entry", f.entry}});
  auto symbols = [](const std::vector<DataSymbol>& v, bool global) {
    json a = json::array();
    for (const auto& s : v) {
      json j = {{"name", s.name}, {"type", type_to_json(s.type)}, {"count", s.count}, {"bank", s.bank}, {"offset", s.offset}};
      if (global) j["slot"] = s.slot;
      a.push_back(j);
    }
    return a;
  };
  meta["consts"] = symbols(consts, false);
  meta["globals"] = symbols(globals, true);
  if (!relocs.empty()) {
    meta["relocs"] = json::array();
    for (const auto& r : relocs)
      meta["relocs"].push_back({{"global", r.global}, {"at", r.at}, {"target", r.target}, {"addend", r.addend},
                                {"bytes", r.bytes}, {"shift", r.shift}});
  }
  const std::string meta_text = meta.dump(1);

  struct Section {
    SectionType type;
    std::vector<uint8_t> payload;
  };
  std::vector<Section> sections;
  {
    Section s{SectionType::Text, std::vector<uint8_t>(text.size() * 8)};
    for (size_t i = 0; i < text.size(); ++i)
      for (int b = 0; b < 8; ++b) s.payload[i * 8 + b] = static_cast<uint8_t>(text[i] >> (8 * b));
    sections.push_back(std::move(s));
  }
  sections.push_back({SectionType::Meta, std::vector<uint8_t>(meta_text.begin(), meta_text.end())});
  for (const auto& [bank, image] : cbanks) {
    Section s{SectionType::ConstBank, std::vector<uint8_t>(4)};
    put32(s.payload, 0, bank);
    s.payload.insert(s.payload.end(), image.begin(), image.end());
    sections.push_back(std::move(s));
  }
  if (!global_data.empty()) sections.push_back({SectionType::GlobalData, global_data});

  std::vector<uint8_t> out(kBinaryHeaderBytes + kSectionEntryBytes * sections.size());
  for (size_t i = 0; i < sections.size(); ++i) {
    while (out.size() % 8) out.push_back(0);  // sections start 8-byte aligned
    const size_t entry = kBinaryHeaderBytes + kSectionEntryBytes * i;
    put32(out, entry + 0, static_cast<uint32_t>(sections[i].type));
    put32(out, entry + 4, static_cast<uint32_t>(out.size()));
    put32(out, entry + 8, static_cast<uint32_t>(sections[i].payload.size()));
    out.insert(out.end(), sections[i].payload.begin(), sections[i].payload.end());
  }
  put32(out, 0, kBinaryMagic);
  put16(out, 4, kBinaryFormatVersion);
  put16(out, 6, static_cast<uint16_t>(isa::gen::kIsaVersion));
  put32(out, 8, static_cast<uint32_t>(sections.size()));
  put32(out, 12, static_cast<uint32_t>(out.size()));
  put32(out, 16, crc_of(std::span(out).subspan(kBinaryHeaderBytes)));
  return out;
}

Module Module::deserialize(std::span<const uint8_t> in, std::string_view where_view) {
  const std::string where(where_view);
  auto fail = [&](const std::string& what) -> void { throw FormatError(fmt::format("{}: corrupt binary: {}", where, what)); };
  if (in.size() < kBinaryHeaderBytes) fail(fmt::format("{} bytes is shorter than the {}-byte header", in.size(), kBinaryHeaderBytes));
  if (get32(in, 0) != kBinaryMagic) fail(fmt::format("bad magic {:#010x} (expected 'TSMB'): not a TeslaSM binary", get32(in, 0)));
  if (get16(in, 4) != kBinaryFormatVersion)
    fail(fmt::format("container format version {} is not supported (this tool reads version {})", get16(in, 4), kBinaryFormatVersion));
  if (get16(in, 6) != isa::gen::kIsaVersion)
    fail(fmt::format("ISA version {} does not match this tool's ISA version {}: reassemble or recompile", get16(in, 6), isa::gen::kIsaVersion));
  if (get32(in, 12) != in.size()) fail(fmt::format("header says {} bytes but the file has {} (truncated or padded)", get32(in, 12), in.size()));
  if (const uint32_t crc = crc_of(in.subspan(kBinaryHeaderBytes)); crc != get32(in, 16))
    fail(fmt::format("checksum mismatch (stored {:#010x}, computed {:#010x}): the file is damaged", get32(in, 16), crc));
  if (get32(in, 20) != 0 || get32(in, 24) != 0 || get32(in, 28) != 0) fail("reserved header fields are not zero");
  const uint32_t count = get32(in, 8);
  if (count < 2 || count > 64) fail(fmt::format("section count {} outside 2..64", count));
  const uint64_t table_end = kBinaryHeaderBytes + uint64_t{kSectionEntryBytes} * count;
  if (table_end > in.size()) fail("section table extends past the end of the file");

  Module m;
  bool have_text = false, have_meta = false, have_global = false;
  json meta;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (uint32_t i = 0; i < count; ++i) {
    const size_t e = kBinaryHeaderBytes + kSectionEntryBytes * i;
    const uint32_t type = get32(in, e), off = get32(in, e + 4), size = get32(in, e + 8);
    const std::string name = fmt::format("section {} (type {})", i, type);
    if (get32(in, e + 12) != 0) fail(name + ": reserved field is not zero");
    if (off < table_end || uint64_t{off} + size > in.size())
      fail(fmt::format("{}: bytes {:#x}..{:#x} lie outside the file's data area", name, off, uint64_t{off} + size));
    for (const auto& [o, s] : spans)
      if (ranges_overlap(off, size, o, s)) fail(name + ": overlaps another section");
    spans.emplace_back(off, size);
    const auto payload = in.subspan(off, size);
    switch (static_cast<SectionType>(type)) {
      case SectionType::Text:
        if (have_text) fail("more than one TEXT section");
        have_text = true;
        if (size % 8 != 0) fail(fmt::format("TEXT size {} is not a multiple of 8", size));
        m.text.resize(size / 8);
        for (size_t w = 0; w < m.text.size(); ++w)
          m.text[w] = uint64_t{get32(payload, w * 8)} | (uint64_t{get32(payload, w * 8 + 4)} << 32);
        break;
      case SectionType::Meta:
        if (have_meta) fail("more than one META section");
        have_meta = true;
        meta = json::parse(payload.begin(), payload.end(), nullptr, false);
        if (meta.is_discarded()) fail("META is not valid JSON");
        break;
      case SectionType::ConstBank: {
        if (size < 4) fail(name + ": constant bank section shorter than its bank number");
        const uint32_t bank = get32(payload, 0);
        if (m.cbanks.count(bank)) fail(fmt::format("constant bank {} appears twice", bank));
        m.cbanks[bank].assign(payload.begin() + 4, payload.end());
        break;
      }
      case SectionType::GlobalData:
        if (have_global) fail("more than one GLOBAL section");
        have_global = true;
        m.global_data.assign(payload.begin(), payload.end());
        break;
      default: fail(name + ": unknown section type");
    }
  }
  if (!have_text) fail("no TEXT section");
  if (!have_meta) fail("no META section");

  const MetaReader r(where);
  const json& kernels = r.array(meta, "", "kernels");
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string p = fmt::format("kernels[{}]", i);
    KernelInfo k;
    k.name = r.name(kernels[i], p);
    k.entry = r.u32(kernels[i], p, "entry");
    k.regs = r.u32(kernels[i], p, "regs");
    k.shared_bytes = r.u32(kernels[i], p, "shared");
    k.local_bytes = r.u32(kernels[i], p, "local");
    const json& params = r.array(kernels[i], p, "params");
    for (size_t j = 0; j < params.size(); ++j) {
      const std::string pp = fmt::format("{}.params[{}]", p, j);
      k.params.push_back({r.name(params[j], pp), r.type(params[j], pp), r.u32(params[j], pp, "offset")});
    }
    m.kernels.push_back(std::move(k));
  }
  const json& funcs = r.array(meta, "", "functions");
  for (size_t i = 0; i < funcs.size(); ++i) {
    const std::string p = fmt::format("functions[{}]", i);
    m.functions.push_back({r.name(funcs[i], p), r.u32(funcs[i], p, "entry")});
  }
  auto symbols = [&](const char* key, std::vector<DataSymbol>& out, bool global) {
    const json& a = r.array(meta, "", key);
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string p = fmt::format("{}[{}]", key, i);
      DataSymbol s{r.name(a[i], p), r.type(a[i], p), r.u32(a[i], p, "count"), r.u32(a[i], p, "bank"), r.u32(a[i], p, "offset")};
      if (global) s.slot = r.u32(a[i], p, "slot");
      out.push_back(std::move(s));
    }
  };
  symbols("consts", m.consts, false);
  symbols("globals", m.globals, true);
  if (meta.contains("relocs")) {  // optional: only modules with address initializers have it
    const json& a = r.array(meta, "", "relocs");
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string p = fmt::format("relocs[{}]", i);
      Relocation rel;
      rel.global = r.member(a[i], p, "global").is_string() ? r.member(a[i], p, "global").get<std::string>() : "";
      rel.target = r.member(a[i], p, "target").is_string() ? r.member(a[i], p, "target").get<std::string>() : "";
      rel.at = r.u32(a[i], p, "at");
      const json& addend = r.member(a[i], p, "addend");
      if (!addend.is_number_integer()) r.fail(p + ".addend", "must be an integer");
      rel.addend = addend.get<int64_t>();
      rel.bytes = r.u32(a[i], p, "bytes");
      rel.shift = r.u32(a[i], p, "shift");
      m.relocs.push_back(std::move(rel));
    }
  }
  m.validate(where);
  return m;
}

Module load_module_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FormatError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return Module::deserialize(bytes, path);
}

void save_module_file(const std::string& path, const Module& module) {
  const auto bytes = module.serialize();
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw FormatError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw FormatError(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
}

}  // namespace tsm
