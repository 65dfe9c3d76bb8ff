// A POSIX serial port for the FPGA board's UART link: raw mode, 8N1, no flow control, a standard
// baud rate; also works on a pty slave (/dev/pts/N, the Verilated board of tsm-board-sim). Errors
// are BoardErrors that name the port and say what to do.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "board/protocol.hpp"

namespace tsm::board {

/// The baud rates SerialPort accepts (the termios Bxxxx constants of this system), ascending.
const std::vector<uint32_t>& supported_bauds();

class SerialPort {
 public:
  SerialPort() = default;
  /// Opens `path` at `baud` (see open()).
  SerialPort(const std::string& path, uint32_t baud) { open(path, baud); }
  ~SerialPort() { close(); }
  SerialPort(SerialPort&& other) noexcept;
  SerialPort& operator=(SerialPort&& other) noexcept;
  SerialPort(const SerialPort&) = delete;
  SerialPort& operator=(const SerialPort&) = delete;

  /// Open the port in raw mode: 8 data bits, no parity, 1 stop bit, no hardware or software flow
  /// control, the receiver on, modem lines ignored; input and output the port still held are
  /// discarded. Takes an advisory lock (flock) so that two programs do not share one board.
  /// Throws BoardError when the port cannot be opened, is not a terminal, is in use, or `baud` is
  /// not one of supported_bauds().
  void open(const std::string& path, uint32_t baud);
  void close();
  bool is_open() const { return fd_ >= 0; }

  /// Write every byte; throws BoardError when the port fails or accepts nothing for `timeout_s`.
  void write_all(std::span<const uint8_t> bytes, double timeout_s = 5.0);
  /// Read what has arrived, up to buf.size() bytes, waiting at most `timeout_s` for the first
  /// byte. Returns the count, 0 when nothing came in time. Throws BoardError when the port fails
  /// or the other side has gone (a pty whose master closed, a USB adapter unplugged).
  std::size_t read_some(std::span<uint8_t> buf, double timeout_s);
  /// Discard input not read yet (received but unread bytes, and what the driver buffers).
  void discard_input();

  const std::string& path() const { return path_; }
  uint32_t baud() const { return baud_; }
  int fd() const { return fd_; }

 private:
  [[noreturn]] void fail(const std::string& what, int err) const;

  int fd_ = -1;
  std::string path_;
  uint32_t baud_ = 0;
};

}  // namespace tsm::board
