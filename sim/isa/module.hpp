// A loaded TeslaSM module (code, kernels, constant and global data) and its binary container.
// The container format is documented in docs/binary-format.md; the loader validates every field.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tsm {

/// A binary that cannot be loaded: what is wrong and where (file, section, offset or PC).
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Scalar data types of parameters and data symbols, with their sizes.
struct DataType {
  std::string name;  // u8 s8 u16 s16 u32 s32 u64 s64 f32 f64 b8 b16 b32 b64, or "bytes"
  uint32_t size = 0;
  uint32_t align = 0;
  bool is_float() const { return name == "f32" || name == "f64"; }
  bool is_signed() const { return !name.empty() && name[0] == 's'; }
};
/// The type with this name (not "bytes"), or nothing.
bool lookup_scalar_type(std::string_view name, DataType& out);

struct ParamInfo {
  std::string name;
  DataType type;       // "bytes" for structs passed by value
  uint32_t offset = 0;  // byte offset in constant bank 0
};

struct KernelInfo {
  std::string name;
  uint32_t entry = 0;         // PC (instruction index) of the first instruction
  uint32_t regs = 0;          // registers per thread
  uint32_t shared_bytes = 0;  // static shared memory per block
  uint32_t local_bytes = 0;   // local memory per thread
  std::vector<ParamInfo> params;
  uint32_t param_end() const;  // first c[0] byte after the parameters
};

struct FunctionInfo {
  std::string name;
  uint32_t entry = 0;
};

/// A named piece of constant or global data.
struct DataSymbol {
  std::string name;
  DataType type;
  uint32_t count = 1;
  uint32_t bank = 0;    // constant symbols: their bank; globals: the bank of their address slot (1)
  uint32_t offset = 0;  // constant symbols: offset in the bank; globals: offset in the global image
  uint32_t slot = 0;    // globals: offset of the 64-bit address slot in bank 1
  uint32_t bytes() const { return type.size * count; }
};

/// An address the loader writes into the global image once it has placed the globals: at byte `at`
/// of global `global`, the low `bytes` bytes of (address of global `target` + addend) >> shift
/// (pointer tables and pointers in initialized structures; shift for nvcc's one-byte-of-an-address
/// form in packed structures).
struct Relocation {
  std::string global;
  uint32_t at = 0;
  std::string target;
  int64_t addend = 0;
  uint32_t bytes = 8;  // 1, 2, 4 or 8
  uint32_t shift = 0;  // 0..56, a multiple of 8
};

struct Module {
  std::vector<uint64_t> text;
  std::vector<KernelInfo> kernels;
  std::vector<FunctionInfo> functions;
  std::vector<DataSymbol> consts;   // data in constant banks 1..15
  std::vector<DataSymbol> globals;  // data in the global image
  std::map<uint32_t, std::vector<uint8_t>> cbanks;  // initial images of constant banks 1..15
  std::vector<uint8_t> global_data;
  std::vector<Relocation> relocs;  // addresses in the global image, filled in at load time

  const KernelInfo* find_kernel(std::string_view name) const;

  /// Check everything a loader relies on; throws FormatError naming the first problem.
  void validate(std::string_view where) const;

  std::vector<uint8_t> serialize() const;
  /// Parse and validate a container. `where` names the source in error messages.
  static Module deserialize(std::span<const uint8_t> bytes, std::string_view where);
};

Module load_module_file(const std::string& path);
void save_module_file(const std::string& path, const Module& module);

/// Container constants (docs/binary-format.md).
inline constexpr uint32_t kBinaryMagic = 0x424D5354;  // "TSMB" little-endian
inline constexpr uint16_t kBinaryFormatVersion = 1;
inline constexpr uint32_t kBinaryHeaderBytes = 32;
inline constexpr uint32_t kSectionEntryBytes = 16;
enum class SectionType : uint32_t { Text = 1, Meta = 2, ConstBank = 3, GlobalData = 4 };

}  // namespace tsm
