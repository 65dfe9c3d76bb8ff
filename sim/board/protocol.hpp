// The host side of the FPGA board's UART protocol (docs/fpga-board.md §3): the CRC, request
// frames, an incremental decoder of reply frames, and the names the error messages use. No I/O
// here: SerialPort (serial_port.hpp) moves the bytes and BoardLink (board_link.hpp) runs requests.
//
// Frames (all multi-byte fields little endian):
//   request: 0xA5 CMD    SEQ LEN_lo LEN_hi PAYLOAD[LEN] CRC_lo CRC_hi
//   reply:   0x5A STATUS SEQ LEN_lo LEN_hi PAYLOAD[LEN] CRC_lo CRC_hi
// The CRC is CRC-16/CCITT-FALSE over every byte after the start byte up to the CRC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/backend_error.hpp"

namespace tsm::board {

/// Anything that goes wrong talking to the board: a port that cannot be opened, a reply that never
/// comes, a link that keeps corrupting frames, an error status. The message says what, where and
/// what to do (docs/errors.md).
class BoardError : public BackendError {
 public:
  using BackendError::BackendError;
};

inline constexpr uint8_t kRequestStart = 0xA5;
inline constexpr uint8_t kReplyStart = 0x5A;
/// Bytes a frame has besides its payload: start, CMD/STATUS, SEQ, LEN (2), CRC (2).
inline constexpr std::size_t kFrameOverhead = 7;
/// The most data bytes one memory write or memory read moves.
inline constexpr std::size_t kMaxTransfer = 1024;
/// The largest payloads the protocol has: a memory write (address + data), a memory read's reply.
inline constexpr std::size_t kMaxRequestPayload = 4 + kMaxTransfer;
inline constexpr std::size_t kMaxReplyPayload = kMaxTransfer;
/// The identify reply: 'T','S','B','1', version, NumSms, reserved (2), MemBase, MemBytes, ClockHz, Baud.
inline constexpr std::size_t kIdentifyReplyBytes = 24;
inline constexpr uint8_t kIdentifyMagic[4] = {'T', 'S', 'B', '1'};
inline constexpr uint8_t kProtocolVersion = 1;

enum class Command : uint8_t {
  kMmioWrite = 0x01,  // addr u16, value u32 -> nothing
  kMmioRead = 0x02,   // addr u16 -> value u32
  kMemWrite = 0x03,   // addr u32, 1..1024 bytes -> nothing
  kMemRead = 0x04,    // addr u32, count u16 (1..1024) -> count bytes
  kIdentify = 0x05,   // nothing -> 24 bytes
};

enum class Status : uint8_t {
  kOk = 0x00,
  kBadCrc = 0x01,          // the board received the request with a bad CRC
  kBadLength = 0x02,       // the request's LEN does not fit its command
  kUnknownCommand = 0x03,
  kAddressRange = 0x04,    // the address is outside the board's memory (or an MMIO address above 0xfff)
  kMmioTimeout = 0x05,     // the GPU did not answer the MMIO read
};

/// CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, not reflected, no final XOR
/// ("123456789" -> 0x29B1).
uint16_t crc16(std::span<const uint8_t> bytes, uint16_t crc = 0xFFFF);

/// A whole request frame: start byte, header, payload, CRC. Throws std::invalid_argument for a
/// payload longer than 65535 bytes.
std::vector<uint8_t> encode_request(Command cmd, uint8_t seq, std::span<const uint8_t> payload);
/// A whole reply frame (the board's side; for tests and models of the board).
std::vector<uint8_t> encode_reply(uint8_t status, uint8_t seq, std::span<const uint8_t> payload);

// The payloads of the requests.
std::vector<uint8_t> mmio_write_payload(uint16_t addr, uint32_t value);
std::vector<uint8_t> mmio_read_payload(uint16_t addr);
std::vector<uint8_t> mem_write_payload(uint32_t addr, std::span<const uint8_t> data);
std::vector<uint8_t> mem_read_payload(uint32_t addr, uint16_t count);

/// "MMIO write", "MMIO read", "memory write", "memory read", "identify"; "command 0xNN" otherwise.
std::string command_name(uint8_t cmd);
inline std::string command_name(Command cmd) { return command_name(static_cast<uint8_t>(cmd)); }
/// "ok", "bad CRC", "bad length", "unknown command", "address out of range", "MMIO read timeout";
/// "unknown status 0xNN" otherwise.
std::string status_name(uint8_t status);
/// What a status means, for the user: "the board received the request with a bad CRC", ...
std::string status_meaning(uint8_t status);

/// Bytes as "5a 00 07 ..." (at most `limit` of them, then "... (N bytes)").
std::string hex_bytes(std::span<const uint8_t> bytes, std::size_t limit = 32);

/// One complete, CRC-checked frame.
struct Frame {
  uint8_t code = 0;  // CMD of a request, STATUS of a reply
  uint8_t seq = 0;
  std::vector<uint8_t> payload;
};

/// What the decoder found in the byte stream.
struct DecodeEvent {
  enum class Kind {
    kFrame,    // a complete frame with a good CRC: `frame`
    kBadCrc,   // a complete frame whose CRC does not match: `frame` as received, `raw`, the CRCs
    kGarbage,  // bytes skipped while looking for a start byte (or a header with an impossible LEN)
  };
  Kind kind = Kind::kFrame;
  Frame frame;
  std::vector<uint8_t> raw;  // kBadCrc: the whole frame; kGarbage: the first 32 skipped bytes
  std::size_t skipped = 0;   // kGarbage: how many bytes were skipped
  uint16_t crc_received = 0, crc_computed = 0;  // kBadCrc
};

/// Incremental frame decoder: feed it bytes as they arrive, in pieces of any size; it returns
/// each frame when its last byte arrives. Bytes before a start byte are skipped and reported as one
/// kGarbage event when the next start byte (or a frame) ends the run; a header whose LEN is above
/// `max_payload` is garbage too (its start byte is skipped and the bytes after it searched again).
/// A frame with a bad CRC is reported and dropped whole; decoding goes on after it.
class FrameDecoder {
 public:
  FrameDecoder(uint8_t start_byte, std::size_t max_payload) : start_(start_byte), max_payload_(max_payload) {}

  std::vector<DecodeEvent> feed(std::span<const uint8_t> bytes);
  std::vector<DecodeEvent> feed(uint8_t byte) { return feed(std::span<const uint8_t>(&byte, 1)); }

  /// Forget a partial frame and skipped bytes not yet reported.
  void reset();
  /// Whether a frame has started but not ended.
  bool in_frame() const { return !buf_.empty(); }
  /// Bytes of the partial frame so far (start byte included).
  std::span<const uint8_t> partial() const { return buf_; }
  /// Bytes skipped since the last kGarbage event (not yet reported).
  std::size_t garbage_pending() const { return garbage_count_; }
  /// The first of them (at most 32).
  std::span<const uint8_t> garbage_sample() const { return garbage_; }

 private:
  void push(uint8_t byte, std::vector<DecodeEvent>& out);
  void skip(uint8_t byte);
  void flush_garbage(std::vector<DecodeEvent>& out);

  uint8_t start_;
  std::size_t max_payload_;
  std::vector<uint8_t> buf_;      // the frame being received, start byte first
  std::vector<uint8_t> garbage_;  // the first skipped bytes of the current run
  std::size_t garbage_count_ = 0;
};

/// The host's decoder of the board's replies (start byte 0x5A, payloads up to 1024 bytes).
class ReplyDecoder : public FrameDecoder {
 public:
  ReplyDecoder() : FrameDecoder(kReplyStart, kMaxReplyPayload) {}
};

/// The board's decoder of requests (start byte 0xA5, payloads up to 1028 bytes).
class RequestDecoder : public FrameDecoder {
 public:
  RequestDecoder() : FrameDecoder(kRequestStart, kMaxRequestPayload) {}
};

/// The identify reply's fields.
struct BoardInfo {
  uint8_t version = 0;
  uint8_t num_sms = 0;
  uint32_t mem_base = 0;
  uint32_t mem_bytes = 0;
  uint32_t clock_hz = 0;
  uint32_t baud = 0;
};

/// Parse an identify reply payload; nullopt when it is not 24 bytes starting with "TSB1".
std::optional<BoardInfo> parse_identify(std::span<const uint8_t> payload);
/// The 24-byte identify payload of `info` (the board's side; for tests and models).
std::vector<uint8_t> identify_payload(const BoardInfo& info);

/// Little-endian helpers.
inline uint16_t get_u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
inline uint32_t get_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}
inline void put_u16(std::vector<uint8_t>& v, uint16_t x) {
  v.push_back(static_cast<uint8_t>(x));
  v.push_back(static_cast<uint8_t>(x >> 8));
}
inline void put_u32(std::vector<uint8_t>& v, uint32_t x) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
}

}  // namespace tsm::board
