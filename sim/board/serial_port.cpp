// The POSIX serial port of the board link: termios raw mode 8N1 at a standard baud rate, poll()
// for timeouts, and error messages that say what to do (docs/errors.md).
#include "board/serial_port.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace tsm::board {

namespace {

struct BaudEntry {
  uint32_t baud;
  speed_t code;
};

// The standard rates of termios; Linux has all of these, other systems a subset.
const std::vector<BaudEntry>& baud_table() {
  static const std::vector<BaudEntry> table = [] {
    std::vector<BaudEntry> t;
#define TSM_BAUD(n) t.push_back({n, B##n})
    TSM_BAUD(50); TSM_BAUD(75); TSM_BAUD(110); TSM_BAUD(134); TSM_BAUD(150); TSM_BAUD(200);
    TSM_BAUD(300); TSM_BAUD(600); TSM_BAUD(1200); TSM_BAUD(1800); TSM_BAUD(2400); TSM_BAUD(4800);
    TSM_BAUD(9600); TSM_BAUD(19200); TSM_BAUD(38400);
#ifdef B57600
    TSM_BAUD(57600);
#endif
#ifdef B115200
    TSM_BAUD(115200);
#endif
#ifdef B230400
    TSM_BAUD(230400);
#endif
#ifdef B460800
    TSM_BAUD(460800);
#endif
#ifdef B500000
    TSM_BAUD(500000);
#endif
#ifdef B576000
    TSM_BAUD(576000);
#endif
#ifdef B921600
    TSM_BAUD(921600);
#endif
#ifdef B1000000
    TSM_BAUD(1000000);
#endif
#ifdef B1152000
    TSM_BAUD(1152000);
#endif
#ifdef B1500000
    TSM_BAUD(1500000);
#endif
#ifdef B2000000
    TSM_BAUD(2000000);
#endif
#ifdef B2500000
    TSM_BAUD(2500000);
#endif
#ifdef B3000000
    TSM_BAUD(3000000);
#endif
#ifdef B3500000
    TSM_BAUD(3500000);
#endif
#ifdef B4000000
    TSM_BAUD(4000000);
#endif
#undef TSM_BAUD
    return t;
  }();
  return table;
}

int to_poll_ms(double timeout_s) {
  if (!(timeout_s > 0)) return 0;
  const double ms = std::ceil(timeout_s * 1000.0);
  return ms > 2'000'000'000.0 ? 2'000'000'000 : static_cast<int>(ms);
}

// What to do about an open() failure, by errno.
std::string open_advice(int err) {
  switch (err) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
      return "is the board plugged in? `ls /dev/ttyUSB* /dev/ttyACM*` lists the USB serial ports; "
             "for the simulated board, pass the path tsm-board-sim printed";
    case EACCES:
    case EPERM:
      return "add yourself to the dialout group (sudo usermod -aG dialout $USER, then log in again), "
             "or give yourself access to the port";
    case EBUSY:
      return "another program has the port open; close it (a terminal program, another tsm run)";
    default:
      return "";
  }
}

}  // namespace

const std::vector<uint32_t>& supported_bauds() {
  static const std::vector<uint32_t> bauds = [] {
    std::vector<uint32_t> v;
    for (const auto& e : baud_table()) v.push_back(e.baud);
    return v;
  }();
  return bauds;
}

SerialPort::SerialPort(SerialPort&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)), baud_(other.baud_) {}

SerialPort& SerialPort::operator=(SerialPort&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    baud_ = other.baud_;
  }
  return *this;
}

void SerialPort::fail(const std::string& what, int err) const {
  const std::string advice = err == EIO || err == ENXIO || err == ENODEV
                                 ? " (the device went away: was the board unplugged, or the simulator stopped?)"
                                 : "";
  throw BoardError(fmt::format("serial port {}: {}: {}{}", path_, what, std::strerror(err), advice));
}

void SerialPort::open(const std::string& path, uint32_t baud) {
  close();
  const auto& table = baud_table();
  const auto entry = std::find_if(table.begin(), table.end(), [&](const BaudEntry& e) { return e.baud == baud; });
  if (entry == table.end()) {
    std::string list;
    for (uint32_t b : supported_bauds()) list += (list.empty() ? "" : ", ") + std::to_string(b);
    throw BoardError(fmt::format("cannot use baud rate {} on serial port {}: not a standard rate of this system (supported: {})",
                                 baud, path, list));
  }

  const int fd = ::open(path.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    const std::string advice = open_advice(err);
    throw BoardError(fmt::format("cannot open serial port {}: {}{}", path, std::strerror(err),
                                 advice.empty() ? "" : " (" + advice + ")"));
  }
  auto give_up = [&](const std::string& message) {
    ::close(fd);
    throw BoardError(message);
  };

  termios tio{};
  if (tcgetattr(fd, &tio) != 0) {
    const int err = errno;
    give_up(fmt::format("cannot use {} as a serial port: {} (it is not a terminal device; expected something like "
                        "/dev/ttyUSB0 or a /dev/pts/N from tsm-board-sim)",
                        path, std::strerror(err)));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK)
      give_up(fmt::format("cannot open serial port {}: it is in use by another program of this project "
                          "(another tsm run on the same board?); wait for it to finish",
                          path));
    // Other errors (a file system without locks): go on without the lock.
  }

  cfmakeraw(&tio);
  tio.c_cflag &= ~static_cast<tcflag_t>(CSIZE | PARENB | CSTOPB);
#ifdef CRTSCTS
  tio.c_cflag &= ~static_cast<tcflag_t>(CRTSCTS);
#endif
  tio.c_cflag |= CS8 | CLOCAL | CREAD;
  tio.c_iflag &= ~static_cast<tcflag_t>(IXON | IXOFF | IXANY | INPCK | ISTRIP);
  tio.c_cc[VMIN] = 0;
  tio.c_cc[VTIME] = 0;
  if (cfsetispeed(&tio, entry->code) != 0 || cfsetospeed(&tio, entry->code) != 0) {
    const int err = errno;
    give_up(fmt::format("cannot set baud rate {} on serial port {}: {}", baud, path, std::strerror(err)));
  }
  if (tcsetattr(fd, TCSANOW, &tio) != 0) {
    const int err = errno;
    give_up(fmt::format("cannot configure serial port {} (raw 8N1 at {} baud): {}", path, baud, std::strerror(err)));
  }
  // tcsetattr succeeds when any one change took; read back that the rate did.
  termios check{};
  if (tcgetattr(fd, &check) == 0 && (cfgetospeed(&check) != entry->code || cfgetispeed(&check) != entry->code))
    give_up(fmt::format("serial port {}: the driver did not accept baud rate {} (the USB-serial adapter may not "
                        "support it)",
                        path, baud));
  tcflush(fd, TCIOFLUSH);

  fd_ = fd;
  path_ = path;
  baud_ = baud;
}

void SerialPort::close() {
  if (fd_ >= 0) {
    ::close(fd_);  // also releases the flock
    fd_ = -1;
  }
}

void SerialPort::write_all(std::span<const uint8_t> bytes, double timeout_s) {
  if (fd_ < 0) throw BoardError("serial port: write on a port that is not open");
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) fail("write failed", errno);
    pollfd p{fd_, POLLOUT, 0};
    const int r = ::poll(&p, 1, to_poll_ms(timeout_s));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail("poll failed", errno);
    if (r == 0)
      throw BoardError(fmt::format("serial port {}: the port accepted no data for {} s ({} of {} bytes written): "
                                   "is something holding the line (flow control, a stopped simulator)?",
                                   path_, timeout_s, done, bytes.size()));
    if (p.revents & (POLLERR | POLLNVAL)) fail("write failed", EIO);
  }
}

std::size_t SerialPort::read_some(std::span<uint8_t> buf, double timeout_s) {
  if (fd_ < 0) throw BoardError("serial port: read on a port that is not open");
  if (buf.empty()) return 0;
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, to_poll_ms(timeout_s));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail("poll failed", errno);
    if (r == 0) return 0;
    const bool hangup = (p.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
    const ssize_t n = ::read(fd_, buf.data(), buf.size());
    if (n > 0) return static_cast<std::size_t>(n);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) fail("read failed", errno);
    // Nothing to read although poll said so: the other side hung up (or a spurious wake-up).
    if (hangup) fail("read failed", EIO);
    return 0;
  }
}

void SerialPort::discard_input() {
  if (fd_ < 0) return;
  tcflush(fd_, TCIFLUSH);
  uint8_t sink[256];
  while (::read(fd_, sink, sizeof sink) > 0) {
  }
}

}  // namespace tsm::board
