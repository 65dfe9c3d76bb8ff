// BoardLink: requests and replies of the board's UART protocol over a SerialPort, with SEQ
// matching, resends on bad CRCs, timeouts, progress lines and the error messages of docs/errors.md.
#include "board/board_link.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace tsm::board {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kProgressThreshold = 64 * 1024;

std::string format_seconds(double s) {
  const double tenths = s * 10;
  if (s >= 0.1 && std::fabs(tenths - std::round(tenths)) < 1e-9) return fmt::format("{:.1f}", s);
  return fmt::format("{:.3g}", s);
}

std::string format_size(std::size_t bytes) {
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
  if (bytes >= 1024) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024);
  return fmt::format("{} byte{}", bytes, bytes == 1 ? "" : "s");
}

std::string printable(std::span<const uint8_t> bytes) {
  std::string s;
  for (uint8_t b : bytes) s += (b >= 0x20 && b < 0x7F) ? static_cast<char>(b) : '.';
  return s;
}

/// "board: writing 256 KiB to 0x00100000: 37 %", rewritten in place on stderr.
class ProgressLine {
 public:
  ProgressLine(bool on, std::string label, std::size_t total) : on_(on), label_(std::move(label)), total_(total) {
    update(0);
  }
  ~ProgressLine() {
    if (open_) std::fputc('\n', stderr);  // an error message that follows starts on its own line
  }
  void update(std::size_t done) {
    if (!on_) return;
    const int pct = static_cast<int>(total_ ? done * 100 / total_ : 100);
    if (pct == last_) return;
    last_ = pct;
    fmt::print(stderr, "\r{}: {} %", label_, pct);
    std::fflush(stderr);
    open_ = true;
    if (done >= total_) {
      std::fputc('\n', stderr);
      open_ = false;
    }
  }

 private:
  bool on_;
  std::string label_;
  std::size_t total_;
  int last_ = -1;
  bool open_ = false;
};

void check_range(uint32_t addr, std::size_t count, const char* what) {
  if (static_cast<uint64_t>(addr) + count > (uint64_t{1} << 32))
    throw BoardError(fmt::format("{} of {} at 0x{:08x}: the range passes the end of the 32-bit address space", what,
                                 format_size(count), addr));
}

}  // namespace

BoardLink::BoardLink(const std::string& port, LinkOptions options) : options_(options) {
  if (!(options_.timeout_s > 0))
    throw BoardError(fmt::format("board link on {}: the reply timeout must be positive (got {} s)", port, options_.timeout_s));
  port_.open(port, options_.baud);
}

std::string BoardLink::where() const { return fmt::format("port {}, {} baud", port_.path(), options_.baud); }

std::vector<uint8_t> BoardLink::transact(Command cmd, std::span<const uint8_t> payload, std::size_t expected_reply,
                                         const std::string& what) {
  std::string last_problem;  // why the previous attempt was resent
  std::vector<uint8_t> buf(4096);
  for (unsigned attempt = 0;; ++attempt) {
    const uint8_t seq = seq_++;
    const std::vector<uint8_t> frame = encode_request(cmd, seq, payload);
    port_.write_all(frame);
    ++counters_.requests;
    if (attempt > 0) ++counters_.retries;
    counters_.bytes_sent += frame.size();

    // The wait starts once the request is in the port; add both frames' time on the wire (10 bits a
    // byte), which matters at low baud rates only.
    const double wire_s = static_cast<double>(frame.size() + expected_reply + kFrameOverhead) * 10.0 / options_.baud;
    const auto deadline = Clock::now() + std::chrono::duration<double>(options_.timeout_s + wire_s);
    std::size_t garbage = 0;
    std::vector<uint8_t> garbage_sample;
    std::string dropped;
    bool resend = false;
    while (!resend) {
      const double remaining = std::chrono::duration<double>(deadline - Clock::now()).count();
      if (remaining <= 0) {
        std::string seen;
        garbage += decoder_.garbage_pending();
        if (garbage_sample.empty()) {
          const auto s = decoder_.garbage_sample();
          garbage_sample.assign(s.begin(), s.end());
        }
        if (garbage)
          seen += fmt::format("; received {} byte{} that are not a reply frame ({}): is the port's baud rate the "
                              "bitstream's?",
                              garbage, garbage == 1 ? "" : "s", hex_bytes(garbage_sample, 16));
        if (decoder_.in_frame())
          seen += fmt::format("; received only the start of a reply ({})", hex_bytes(decoder_.partial(), 16));
        if (!dropped.empty()) seen += "; " + dropped;
        if (attempt > 0) seen += fmt::format("; this was resend {} of {}, after {}", attempt, options_.retries, last_problem);
        throw BoardError(fmt::format("no reply to {} within {} s ({}): is the board programmed with the TeslaSM "
                                     "bitstream and connected?{}",
                                     what, format_seconds(options_.timeout_s), where(), seen));
      }
      const std::size_t n = port_.read_some(buf, remaining);
      counters_.bytes_received += n;
      if (n == 0) continue;
      for (DecodeEvent& e : decoder_.feed(std::span<const uint8_t>(buf.data(), n))) {
        switch (e.kind) {
          case DecodeEvent::Kind::kGarbage:
            counters_.garbage_bytes += e.skipped;
            garbage += e.skipped;
            if (garbage_sample.empty()) garbage_sample = e.raw;
            break;
          case DecodeEvent::Kind::kBadCrc:
            ++counters_.bad_crc_replies;
            last_problem = fmt::format("a reply with a bad CRC ({}: CRC 0x{:04x}, computed 0x{:04x})", hex_bytes(e.raw, 24),
                                       e.crc_received, e.crc_computed);
            resend = true;
            break;
          case DecodeEvent::Kind::kFrame: {
            const Frame& f = e.frame;
            if (f.seq != seq) {
              ++counters_.dropped_replies;
              dropped = fmt::format("dropped a reply with SEQ {} (a late reply to an earlier request; expected SEQ {})", f.seq, seq);
              break;
            }
            if (f.code == static_cast<uint8_t>(Status::kBadCrc)) {
              last_problem = "status 0x01: the board received the request with a bad CRC";
              resend = true;
              break;
            }
            if (f.code != static_cast<uint8_t>(Status::kOk)) {
              std::string detail = status_meaning(f.code);
              const bool mmio = cmd == Command::kMmioRead || cmd == Command::kMmioWrite;
              if (f.code == static_cast<uint8_t>(Status::kAddressRange) && mmio) {
                detail = "the address is outside the GPU's registers (0x000..0xfff)";
              } else if (f.code == static_cast<uint8_t>(Status::kAddressRange)) {
                detail = "the address is outside the board's memory";
                if (info_ && info_->mem_bytes)
                  detail += fmt::format(" (0x{:08x}..0x{:08x})", info_->mem_base,
                                        static_cast<uint64_t>(info_->mem_base) + info_->mem_bytes - 1);
              }
              if (f.code == static_cast<uint8_t>(Status::kMmioTimeout))
                detail += " (is the address one of the GPU's registers? is the GPU hung?)";
              throw BoardError(fmt::format("{} failed: the board answered '{}' (status 0x{:02x}): {} ({})", what,
                                           status_name(f.code), f.code, detail, where()));
            }
            if (f.payload.size() != expected_reply && cmd != Command::kIdentify)
              throw BoardError(fmt::format("{}: the board's reply has {} payload bytes, expected {} ({}): a bitstream of "
                                           "another protocol version? ({})",
                                           what, f.payload.size(), expected_reply, hex_bytes(f.payload, 16), where()));
            return f.payload;
          }
        }
      }
    }
    if (attempt >= options_.retries)
      throw BoardError(fmt::format("{} failed after {} attempt{}: the last ended with {}; the serial link corrupts data: "
                                   "check the cable and the USB port ({})",
                                   what, attempt + 1, attempt ? "s" : "", last_problem, where()));
  }
}

BoardInfo BoardLink::identify() {
  const std::vector<uint8_t> reply = transact(Command::kIdentify, {}, kIdentifyReplyBytes, "identify");
  const std::optional<BoardInfo> info = parse_identify(reply);
  if (!info) {
    const auto magic = std::span<const uint8_t>(reply).first(std::min<std::size_t>(4, reply.size()));
    throw BoardError(fmt::format("identify on {}: the reply is not a TeslaSM board's ({} bytes starting '{}' = {}, "
                                 "expected {} bytes starting 'TSB1'): is the board programmed with the TeslaSM "
                                 "bitstream?",
                                 port_.path(), reply.size(), printable(magic), hex_bytes(reply, 8), kIdentifyReplyBytes));
  }
  if (info->version != kProtocolVersion)
    throw BoardError(fmt::format("identify on {}: the board speaks protocol version {}, this host version {}: build "
                                 "the bitstream and the host tools from the same tree",
                                 port_.path(), info->version, kProtocolVersion));
  info_ = info;
  return *info;
}

void BoardLink::mmio_write(uint32_t addr, uint32_t value) {
  const std::string what = fmt::format("MMIO write 0x{:03x}", addr);
  if (addr > 0xFFFF) throw BoardError(what + ": the address does not fit the protocol's 16 bits");
  transact(Command::kMmioWrite, mmio_write_payload(static_cast<uint16_t>(addr), value), 0, what);
}

uint32_t BoardLink::mmio_read(uint32_t addr) {
  const std::string what = fmt::format("MMIO read 0x{:03x}", addr);
  if (addr > 0xFFFF) throw BoardError(what + ": the address does not fit the protocol's 16 bits");
  const std::vector<uint8_t> reply = transact(Command::kMmioRead, mmio_read_payload(static_cast<uint16_t>(addr)), 4, what);
  return get_u32(reply.data());
}

void BoardLink::mem_write(uint32_t addr, std::span<const uint8_t> bytes) {
  check_range(addr, bytes.size(), "memory write");
  ProgressLine progress(options_.progress && bytes.size() > kProgressThreshold,
                        fmt::format("board: writing {} to 0x{:08x}", format_size(bytes.size()), addr), bytes.size());
  for (std::size_t done = 0; done < bytes.size();) {
    const std::size_t n = std::min(kMaxTransfer, bytes.size() - done);
    const uint32_t a = addr + static_cast<uint32_t>(done);
    transact(Command::kMemWrite, mem_write_payload(a, bytes.subspan(done, n)), 0,
             fmt::format("memory write of {} at 0x{:08x}", format_size(n), a));
    done += n;
    progress.update(done);
  }
}

void BoardLink::mem_read(uint32_t addr, std::span<uint8_t> bytes) {
  check_range(addr, bytes.size(), "memory read");
  ProgressLine progress(options_.progress && bytes.size() > kProgressThreshold,
                        fmt::format("board: reading {} from 0x{:08x}", format_size(bytes.size()), addr), bytes.size());
  for (std::size_t done = 0; done < bytes.size();) {
    const std::size_t n = std::min(kMaxTransfer, bytes.size() - done);
    const uint32_t a = addr + static_cast<uint32_t>(done);
    const std::vector<uint8_t> reply = transact(Command::kMemRead, mem_read_payload(a, static_cast<uint16_t>(n)), n,
                                                fmt::format("memory read of {} at 0x{:08x}", format_size(n), a));
    std::copy(reply.begin(), reply.end(), bytes.begin() + static_cast<std::ptrdiff_t>(done));
    done += n;
    progress.update(done);
  }
}

std::vector<uint8_t> BoardLink::mem_read(uint32_t addr, std::size_t count) {
  std::vector<uint8_t> bytes(count);
  mem_read(addr, bytes);
  return bytes;
}

}  // namespace tsm::board
