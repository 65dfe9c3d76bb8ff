// Device memory of the golden model: a sparse 32-bit byte-addressed space plus the list of
// allocations, so that every global access outside an allocation is a fault.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>

namespace tsm::golden {

class DeviceMemory {
 public:
  /// Make [addr, addr+size) accessible (an allocation, a global variable, the printf buffer).
  void map(uint32_t addr, uint32_t size);
  /// Remove the allocation starting at addr; its bytes read as zero if mapped again.
  void unmap(uint32_t addr);
  /// The allocation containing [addr, addr+size), as {start, size}, if any.
  std::optional<std::pair<uint32_t, uint32_t>> allocation_of(uint32_t addr, uint32_t size) const;
  bool accessible(uint32_t addr, uint32_t size) const { return allocation_of(addr, size).has_value(); }

  // Raw access, no bounds checks (callers check first): unwritten bytes read as zero.
  void read(uint32_t addr, std::span<uint8_t> out) const;
  void write(uint32_t addr, std::span<const uint8_t> in);
  uint64_t load(uint32_t addr, unsigned bytes) const;            // little-endian, bytes <= 8
  void store(uint32_t addr, unsigned bytes, uint64_t value);

 private:
  static constexpr uint32_t kPageBits = 12;
  using Page = std::array<uint8_t, 1u << kPageBits>;
  Page* page(uint32_t addr, bool create) const;
  mutable std::unordered_map<uint32_t, std::unique_ptr<Page>> pages_;
  std::map<uint32_t, uint32_t> allocations_;  // start -> size
};

}  // namespace tsm::golden
