// BoardLink: the requests of the FPGA board's UART protocol (docs/fpga-board.md §3) over a serial
// port, one at a time: MMIO reads and writes of the GPU's registers, board-memory reads and writes
// in frames of up to 1024 bytes, identify. It numbers requests (SEQ), drops late replies, resends
// on a bad CRC and turns every failure into a BoardError that says what to do (docs/errors.md).
// The future UartLink of the board backend (docs/fpga-board.md §4) wraps this class.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "board/protocol.hpp"
#include "board/serial_port.hpp"

namespace tsm::board {

struct LinkOptions {
  uint32_t baud = 3000000;  // the serial port's rate (meaningless on a pty, but still checked)
  double timeout_s = 1.0;   // how long to wait for each reply (plus the frames' time on the wire)
  unsigned retries = 3;     // resends after a reply with a bad CRC or a status 0x01, per request
  bool progress = true;     // a progress line on stderr for transfers over 64 KiB
};

/// What the link did so far.
struct LinkCounters {
  uint64_t requests = 0;         // request frames sent, resends included
  uint64_t retries = 0;          // of those, resends (after a bad CRC either way)
  uint64_t bytes_sent = 0;       // bytes written to the port
  uint64_t bytes_received = 0;   // bytes read from the port
  uint64_t bad_crc_replies = 0;  // reply frames received with a bad CRC
  uint64_t dropped_replies = 0;  // replies whose SEQ was not the current request's (late replies)
  uint64_t garbage_bytes = 0;    // bytes skipped outside any reply frame
};

class BoardLink {
 public:
  /// Opens `port` (a serial device such as /dev/ttyUSB0, or the pty of tsm-board-sim). Throws
  /// BoardError when it cannot. Talks to nothing yet: identify() is the first request callers make.
  explicit BoardLink(const std::string& port, LinkOptions options = {});

  /// Asks the board who it is. Throws BoardError when nothing answers, or the answer is not a
  /// TeslaSM board's ("is the board programmed with the TeslaSM bitstream?") or another protocol
  /// version's.
  BoardInfo identify();

  /// A GPU register write / read (`addr` must fit 16 bits).
  void mmio_write(uint32_t addr, uint32_t value);
  uint32_t mmio_read(uint32_t addr);

  /// Board-memory write / read of bytes.size() bytes at device address `addr`, in requests of up to
  /// 1024 bytes, with a progress line on stderr above 64 KiB when options().progress.
  void mem_write(uint32_t addr, std::span<const uint8_t> bytes);
  void mem_read(uint32_t addr, std::span<uint8_t> bytes);
  std::vector<uint8_t> mem_read(uint32_t addr, std::size_t count);

  const LinkCounters& counters() const { return counters_; }
  const LinkOptions& options() const { return options_; }
  const std::string& port() const { return port_.path(); }
  /// The identify reply, once identify() has succeeded.
  const std::optional<BoardInfo>& info() const { return info_; }

 private:
  /// One request, resent on bad CRCs; returns the OK reply's payload, which must be
  /// `expected_reply` bytes long. `what` names the request in messages ("MMIO read 0x014").
  std::vector<uint8_t> transact(Command cmd, std::span<const uint8_t> payload, std::size_t expected_reply,
                                const std::string& what);
  std::string where() const;

  SerialPort port_;
  LinkOptions options_;
  ReplyDecoder decoder_;
  uint8_t seq_ = 0;
  LinkCounters counters_;
  std::optional<BoardInfo> info_;
};

}  // namespace tsm::board
