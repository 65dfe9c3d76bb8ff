// Device printf: the buffer layout kernels write (docs/runtime.md) and the host-side formatter.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace tsm {

/// Buffer header: u32 bytes used (kernels reserve records with ATOM.ADD on it), u32 capacity,
/// 8 reserved bytes; records follow.
inline constexpr uint32_t kPrintfHeaderBytes = 16;
/// Record: u32 record bytes (a multiple of 8, header included), u32 zero, u64 address of the
/// format string, then the arguments as vprintf lays them out (each at its natural alignment,
/// float promoted to double, %s as a 64-bit address).
inline constexpr uint32_t kPrintfRecordHeaderBytes = 16;

/// Reads a NUL-terminated string of at most `max` bytes from device memory.
using DeviceStringReader = std::function<std::string(uint32_t addr, size_t max)>;

/// Format every record of a drained buffer (header included) as the host's printf would.
std::string format_printf_buffer(std::span<const uint8_t> buffer, const DeviceStringReader& read_string);

}  // namespace tsm
