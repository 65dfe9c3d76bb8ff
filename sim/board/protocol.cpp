// The FPGA board's UART protocol, host side (docs/fpga-board.md §3): CRC, frames, decoder, names.
#include "board/protocol.hpp"

#include <array>
#include <stdexcept>

#include <fmt/format.h>

namespace tsm::board {

namespace {

constexpr std::array<uint16_t, 256> make_crc_table() {
  std::array<uint16_t, 256> table{};
  for (unsigned i = 0; i < 256; ++i) {
    uint16_t crc = static_cast<uint16_t>(i << 8);
    for (int bit = 0; bit < 8; ++bit)
      crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
    table[i] = crc;
  }
  return table;
}
constexpr std::array<uint16_t, 256> kCrcTable = make_crc_table();

std::vector<uint8_t> encode_frame(uint8_t start, uint8_t code, uint8_t seq, std::span<const uint8_t> payload) {
  if (payload.size() > 0xFFFF)
    throw std::invalid_argument(fmt::format("board protocol: a payload of {} bytes does not fit LEN (at most 65535)", payload.size()));
  std::vector<uint8_t> frame;
  frame.reserve(payload.size() + kFrameOverhead);
  frame.push_back(start);
  frame.push_back(code);
  frame.push_back(seq);
  put_u16(frame, static_cast<uint16_t>(payload.size()));
  frame.insert(frame.end(), payload.begin(), payload.end());
  put_u16(frame, crc16(std::span<const uint8_t>(frame).subspan(1)));
  return frame;
}

constexpr std::size_t kGarbageSample = 32;

}  // namespace

uint16_t crc16(std::span<const uint8_t> bytes, uint16_t crc) {
  for (uint8_t b : bytes) crc = static_cast<uint16_t>(crc << 8 ^ kCrcTable[(crc >> 8 ^ b) & 0xFF]);
  return crc;
}

std::vector<uint8_t> encode_request(Command cmd, uint8_t seq, std::span<const uint8_t> payload) {
  return encode_frame(kRequestStart, static_cast<uint8_t>(cmd), seq, payload);
}

std::vector<uint8_t> encode_reply(uint8_t status, uint8_t seq, std::span<const uint8_t> payload) {
  return encode_frame(kReplyStart, status, seq, payload);
}

std::vector<uint8_t> mmio_write_payload(uint16_t addr, uint32_t value) {
  std::vector<uint8_t> p;
  put_u16(p, addr);
  put_u32(p, value);
  return p;
}

std::vector<uint8_t> mmio_read_payload(uint16_t addr) {
  std::vector<uint8_t> p;
  put_u16(p, addr);
  return p;
}

std::vector<uint8_t> mem_write_payload(uint32_t addr, std::span<const uint8_t> data) {
  std::vector<uint8_t> p;
  p.reserve(4 + data.size());
  put_u32(p, addr);
  p.insert(p.end(), data.begin(), data.end());
  return p;
}

std::vector<uint8_t> mem_read_payload(uint32_t addr, uint16_t count) {
  std::vector<uint8_t> p;
  put_u32(p, addr);
  put_u16(p, count);
  return p;
}

std::string command_name(uint8_t cmd) {
  switch (static_cast<Command>(cmd)) {
    case Command::kMmioWrite: return "MMIO write";
    case Command::kMmioRead: return "MMIO read";
    case Command::kMemWrite: return "memory write";
    case Command::kMemRead: return "memory read";
    case Command::kIdentify: return "identify";
  }
  return fmt::format("command 0x{:02x}", cmd);
}

std::string status_name(uint8_t status) {
  switch (static_cast<Status>(status)) {
    case Status::kOk: return "ok";
    case Status::kBadCrc: return "bad CRC";
    case Status::kBadLength: return "bad length";
    case Status::kUnknownCommand: return "unknown command";
    case Status::kAddressRange: return "address out of range";
    case Status::kMmioTimeout: return "MMIO read timeout";
  }
  return fmt::format("unknown status 0x{:02x}", status);
}

std::string status_meaning(uint8_t status) {
  switch (static_cast<Status>(status)) {
    case Status::kOk: return "the request succeeded";
    case Status::kBadCrc: return "the board received the request with a bad CRC";
    case Status::kBadLength: return "the board refused the request's length for its command";
    case Status::kUnknownCommand: return "the board does not know the command (a bitstream of another protocol version?)";
    case Status::kAddressRange: return "the address is out of range (outside the board's memory, or an MMIO address above 0xfff)";
    case Status::kMmioTimeout: return "the GPU did not answer the register read";
  }
  return fmt::format("the board answered status 0x{:02x}, which this host does not know", status);
}

std::string hex_bytes(std::span<const uint8_t> bytes, std::size_t limit) {
  std::string s;
  const std::size_t n = std::min(bytes.size(), limit);
  for (std::size_t i = 0; i < n; ++i) {
    if (i) s += ' ';
    s += fmt::format("{:02x}", bytes[i]);
  }
  if (bytes.size() > n) s += fmt::format(" ... ({} bytes)", bytes.size());
  return s;
}

// ---- decoder -------------------------------------------------------------------------------------

void FrameDecoder::reset() {
  buf_.clear();
  garbage_.clear();
  garbage_count_ = 0;
}

void FrameDecoder::skip(uint8_t byte) {
  if (garbage_.size() < kGarbageSample) garbage_.push_back(byte);
  ++garbage_count_;
}

void FrameDecoder::flush_garbage(std::vector<DecodeEvent>& out) {
  if (garbage_count_ == 0) return;
  DecodeEvent e;
  e.kind = DecodeEvent::Kind::kGarbage;
  e.raw = std::move(garbage_);
  e.skipped = garbage_count_;
  out.push_back(std::move(e));
  garbage_.clear();
  garbage_count_ = 0;
}

std::vector<DecodeEvent> FrameDecoder::feed(std::span<const uint8_t> bytes) {
  std::vector<DecodeEvent> out;
  for (uint8_t b : bytes) push(b, out);
  return out;
}

void FrameDecoder::push(uint8_t byte, std::vector<DecodeEvent>& out) {
  if (buf_.empty()) {
    if (byte != start_) {
      skip(byte);
      return;
    }
    flush_garbage(out);
    buf_.push_back(byte);
    return;
  }
  buf_.push_back(byte);
  if (buf_.size() == 5) {
    const std::size_t len = get_u16(&buf_[3]);
    if (len > max_payload_) {
      // No frame is that long: the start byte was data. Skip it and search the rest again.
      std::vector<uint8_t> rest(buf_.begin() + 1, buf_.end());
      buf_.clear();
      skip(start_);
      for (uint8_t r : rest) push(r, out);
    }
    return;
  }
  if (buf_.size() < 5) return;
  const std::size_t len = get_u16(&buf_[3]);
  if (buf_.size() < len + kFrameOverhead) return;

  const uint16_t received = get_u16(&buf_[buf_.size() - 2]);
  const uint16_t computed = crc16(std::span<const uint8_t>(buf_).subspan(1, buf_.size() - 3));
  DecodeEvent e;
  e.kind = received == computed ? DecodeEvent::Kind::kFrame : DecodeEvent::Kind::kBadCrc;
  e.frame.code = buf_[1];
  e.frame.seq = buf_[2];
  e.frame.payload.assign(buf_.begin() + 5, buf_.end() - 2);
  if (e.kind == DecodeEvent::Kind::kBadCrc) {
    e.raw = buf_;
    e.crc_received = received;
    e.crc_computed = computed;
  }
  buf_.clear();
  out.push_back(std::move(e));
}

// ---- identify ------------------------------------------------------------------------------------

std::optional<BoardInfo> parse_identify(std::span<const uint8_t> p) {
  if (p.size() != kIdentifyReplyBytes) return std::nullopt;
  for (int i = 0; i < 4; ++i)
    if (p[i] != kIdentifyMagic[i]) return std::nullopt;
  BoardInfo info;
  info.version = p[4];
  info.num_sms = p[5];
  info.mem_base = get_u32(&p[8]);
  info.mem_bytes = get_u32(&p[12]);
  info.clock_hz = get_u32(&p[16]);
  info.baud = get_u32(&p[20]);
  return info;
}

std::vector<uint8_t> identify_payload(const BoardInfo& info) {
  std::vector<uint8_t> p(std::begin(kIdentifyMagic), std::end(kIdentifyMagic));
  p.push_back(info.version);
  p.push_back(info.num_sms);
  put_u16(p, 0);
  put_u32(p, info.mem_base);
  put_u32(p, info.mem_bytes);
  put_u32(p, info.clock_hz);
  put_u32(p, info.baud);
  return p;
}

}  // namespace tsm::board
