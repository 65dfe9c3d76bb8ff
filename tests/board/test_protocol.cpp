// Tests of the board link's host side (sim/board): the CRC, request frames, the reply decoder, and
// BoardLink over a real pty pair whose other side is a small reply server in this file (FakeBoard).
// FakeBoard parses requests and computes CRCs with its own code, not the library's, so that a
// mistake in the library cannot cancel out; it injects faults (bad CRCs, status 0x01, late and
// stale replies, silence, noise) to exercise the resends, SEQ matching and error messages.
// BoardSim.* runs BoardLink against tsm-board-sim (the Verilated board) when TSM_BOARD_SIM names it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "board/board_link.hpp"
#include "board/protocol.hpp"
#include "board/serial_port.hpp"

namespace tsm::board {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes bytes_of(std::string_view s) { return Bytes(s.begin(), s.end()); }

// ---- CRC and frames --------------------------------------------------------------------------------

TEST(BoardProtocol, CrcCheckValue) {
  EXPECT_EQ(crc16(bytes_of("123456789")), 0x29B1);
  EXPECT_EQ(crc16({}), 0xFFFF);
  // Incremental: the CRC of a concatenation continues from the first part's.
  EXPECT_EQ(crc16(bytes_of("56789"), crc16(bytes_of("1234"))), 0x29B1);
}

// The expected frames were computed outside this code (Python's binascii.crc_hqx(body, 0xFFFF)).
TEST(BoardProtocol, EncodeEachCommand) {
  EXPECT_EQ(encode_request(Command::kMmioWrite, 7, mmio_write_payload(0x010, 0x12345678)),
            (Bytes{0xa5, 0x01, 0x07, 0x06, 0x00, 0x10, 0x00, 0x78, 0x56, 0x34, 0x12, 0x62, 0x75}));
  EXPECT_EQ(encode_request(Command::kMmioRead, 8, mmio_read_payload(0x014)),
            (Bytes{0xa5, 0x02, 0x08, 0x02, 0x00, 0x14, 0x00, 0xa2, 0xa5}));
  const Bytes data{0xde, 0xad, 0xbe};
  EXPECT_EQ(encode_request(Command::kMemWrite, 9, mem_write_payload(0x00100000, data)),
            (Bytes{0xa5, 0x03, 0x09, 0x07, 0x00, 0x00, 0x00, 0x10, 0x00, 0xde, 0xad, 0xbe, 0xa8, 0x6f}));
  EXPECT_EQ(encode_request(Command::kMemRead, 10, mem_read_payload(0x00100040, 1024)),
            (Bytes{0xa5, 0x04, 0x0a, 0x06, 0x00, 0x40, 0x00, 0x10, 0x00, 0x00, 0x04, 0x6c, 0x12}));
  EXPECT_EQ(encode_request(Command::kIdentify, 255, {}), (Bytes{0xa5, 0x05, 0xff, 0x00, 0x00, 0xe6, 0xf7}));
  EXPECT_EQ(encode_reply(0, 3, Bytes{0x54, 0x53, 0x4d, 0x31}),
            (Bytes{0x5a, 0x00, 0x03, 0x04, 0x00, 0x54, 0x53, 0x4d, 0x31, 0xab, 0x0a}));
}

TEST(BoardProtocol, Names) {
  EXPECT_EQ(command_name(Command::kMemRead), "memory read");
  EXPECT_EQ(command_name(0x42), "command 0x42");
  EXPECT_EQ(status_name(0x04), "address out of range");
  EXPECT_EQ(status_name(0x05), "MMIO read timeout");
  EXPECT_EQ(status_name(0x99), "unknown status 0x99");
}

TEST(BoardProtocol, IdentifyPayloadRoundTrip) {
  const BoardInfo info{1, 2, 0x00100000, 131072, 60000000, 3000000};
  const Bytes p = identify_payload(info);
  ASSERT_EQ(p.size(), kIdentifyReplyBytes);
  EXPECT_EQ(Bytes(p.begin(), p.begin() + 4), bytes_of("TSB1"));
  const auto back = parse_identify(p);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->num_sms, 2);
  EXPECT_EQ(back->mem_bytes, 131072u);
  EXPECT_EQ(back->baud, 3000000u);
  Bytes bad = p;
  bad[3] = '2';
  EXPECT_FALSE(parse_identify(bad));
  EXPECT_FALSE(parse_identify(Bytes(p.begin(), p.end() - 1)));
}

// ---- decoder ----------------------------------------------------------------------------------------

std::vector<DecodeEvent> feed_all(ReplyDecoder& d, const Bytes& stream, std::size_t piece) {
  std::vector<DecodeEvent> all;
  for (std::size_t i = 0; i < stream.size(); i += piece) {
    const std::size_t n = std::min(piece, stream.size() - i);
    for (auto& e : d.feed(std::span<const uint8_t>(stream.data() + i, n))) all.push_back(std::move(e));
  }
  return all;
}

TEST(BoardDecoder, SplitStream) {
  Bytes payload(300);
  std::iota(payload.begin(), payload.end(), 0);  // holds 0x5a and 0xa5 bytes
  Bytes stream = encode_reply(0, 1, payload);
  const Bytes second = encode_reply(4, 2, {});
  stream.insert(stream.end(), second.begin(), second.end());
  for (std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}, stream.size()}) {
    ReplyDecoder d;
    const auto events = feed_all(d, stream, piece);
    ASSERT_EQ(events.size(), 2u) << "pieces of " << piece;
    EXPECT_EQ(events[0].kind, DecodeEvent::Kind::kFrame);
    EXPECT_EQ(events[0].frame.code, 0);
    EXPECT_EQ(events[0].frame.seq, 1);
    EXPECT_EQ(events[0].frame.payload, payload);
    EXPECT_EQ(events[1].kind, DecodeEvent::Kind::kFrame);
    EXPECT_EQ(events[1].frame.code, 4);
    EXPECT_EQ(events[1].frame.seq, 2);
    EXPECT_TRUE(events[1].frame.payload.empty());
    EXPECT_FALSE(d.in_frame());
  }
}

TEST(BoardDecoder, GarbageBeforeStart) {
  Bytes stream{0x00, 0xff, 0x13, 0xa5, 0x11};
  const Bytes frame = encode_reply(0, 9, Bytes{1, 2, 3, 4});
  stream.insert(stream.end(), frame.begin(), frame.end());
  ReplyDecoder d;
  const auto events = feed_all(d, stream, 3);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, DecodeEvent::Kind::kGarbage);
  EXPECT_EQ(events[0].skipped, 5u);
  EXPECT_EQ(events[0].raw, (Bytes{0x00, 0xff, 0x13, 0xa5, 0x11}));
  EXPECT_EQ(events[1].kind, DecodeEvent::Kind::kFrame);
  EXPECT_EQ(events[1].frame.seq, 9);
  EXPECT_EQ(events[1].frame.payload, (Bytes{1, 2, 3, 4}));
}

TEST(BoardDecoder, GarbageWithoutFrameIsPending) {
  ReplyDecoder d;
  EXPECT_TRUE(d.feed(Bytes{1, 2, 3}).empty());
  EXPECT_EQ(d.garbage_pending(), 3u);
  EXPECT_EQ(Bytes(d.garbage_sample().begin(), d.garbage_sample().end()), (Bytes{1, 2, 3}));
}

TEST(BoardDecoder, BadCrcIsReportedAndDecodingGoesOn) {
  Bytes bad = encode_reply(0, 5, Bytes{0x10, 0x20, 0x30, 0x40});
  bad[6] ^= 0x01;  // a bit error in the payload
  Bytes stream = bad;
  const Bytes good = encode_reply(0, 6, Bytes{0xaa});
  stream.insert(stream.end(), good.begin(), good.end());
  ReplyDecoder d;
  const auto events = feed_all(d, stream, 1);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, DecodeEvent::Kind::kBadCrc);
  EXPECT_EQ(events[0].raw, bad);
  EXPECT_NE(events[0].crc_received, events[0].crc_computed);
  EXPECT_EQ(events[0].crc_computed, crc16(std::span<const uint8_t>(bad).subspan(1, bad.size() - 3)));
  EXPECT_EQ(events[1].kind, DecodeEvent::Kind::kFrame);
  EXPECT_EQ(events[1].frame.seq, 6);
}

TEST(BoardDecoder, ImpossibleLengthIsGarbage) {
  // 0x5a followed by a LEN of 0xffff cannot start a reply: the decoder skips it and finds the frame.
  Bytes stream{0x5a, 0x00, 0x01, 0xff, 0xff};
  const Bytes frame = encode_reply(0, 2, Bytes{7});
  stream.insert(stream.end(), frame.begin(), frame.end());
  ReplyDecoder d;
  const auto events = feed_all(d, stream, 1);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, DecodeEvent::Kind::kGarbage);
  EXPECT_EQ(events[0].skipped, 5u);
  EXPECT_EQ(events[1].kind, DecodeEvent::Kind::kFrame);
  EXPECT_EQ(events[1].frame.payload, (Bytes{7}));
}

TEST(BoardDecoder, RandomFramesAmongNoise) {
  // Frames with random payloads between runs of noise that holds no 0x5a, fed in random pieces: every
  // frame comes out, in order, and every noise byte is counted.
  uint32_t rng = 12345;
  auto next = [&] { return rng = rng * 1664525u + 1013904223u; };
  Bytes stream;
  std::vector<Bytes> payloads;
  std::size_t noise = 0;
  for (int i = 0; i < 200; ++i) {
    for (uint32_t n = next() % 5; n > 0; --n, ++noise) {
      uint8_t b = static_cast<uint8_t>(next() >> 24);
      stream.push_back(b == 0x5a ? 0x5b : b);
    }
    Bytes payload(next() % 40);
    for (auto& b : payload) b = static_cast<uint8_t>(next() >> 24);
    const Bytes frame = encode_reply(static_cast<uint8_t>(i % 6), static_cast<uint8_t>(i), payload);
    stream.insert(stream.end(), frame.begin(), frame.end());
    payloads.push_back(payload);
  }
  ReplyDecoder d;
  std::vector<DecodeEvent> events;
  for (std::size_t i = 0; i < stream.size();) {
    const std::size_t n = std::min<std::size_t>(1 + next() % 50, stream.size() - i);
    for (auto& e : d.feed(std::span<const uint8_t>(stream.data() + i, n))) events.push_back(std::move(e));
    i += n;
  }
  std::size_t frames = 0, skipped = 0;
  for (const auto& e : events) {
    if (e.kind == DecodeEvent::Kind::kGarbage) {
      skipped += e.skipped;
      continue;
    }
    ASSERT_EQ(e.kind, DecodeEvent::Kind::kFrame);
    ASSERT_LT(frames, payloads.size());
    EXPECT_EQ(e.frame.seq, static_cast<uint8_t>(frames));
    EXPECT_EQ(e.frame.code, frames % 6);
    EXPECT_EQ(e.frame.payload, payloads[frames]);
    ++frames;
  }
  EXPECT_EQ(frames, payloads.size());
  EXPECT_EQ(skipped, noise);
}

// ---- FakeBoard: the reply side of the protocol on a pty master ---------------------------------------

// Its own CRC, bit by bit (not the library's table).
uint16_t ref_crc(const uint8_t* p, std::size_t n) {
  uint16_t crc = 0xFFFF;
  for (std::size_t i = 0; i < n; ++i) {
    crc ^= static_cast<uint16_t>(p[i] << 8);
    for (int b = 0; b < 8; ++b) crc = (crc & 0x8000) ? static_cast<uint16_t>(crc << 1 ^ 0x1021) : static_cast<uint16_t>(crc << 1);
  }
  return crc;
}

Bytes ref_reply(uint8_t status, uint8_t seq, const Bytes& payload) {
  Bytes f{0x5a, status, seq, static_cast<uint8_t>(payload.size()), static_cast<uint8_t>(payload.size() >> 8)};
  f.insert(f.end(), payload.begin(), payload.end());
  const uint16_t crc = ref_crc(f.data() + 1, f.size() - 1);
  f.push_back(static_cast<uint8_t>(crc));
  f.push_back(static_cast<uint8_t>(crc >> 8));
  return f;
}

uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }

class FakeBoard {
 public:
  static constexpr uint32_t kMemBase = 0x00100000;
  static constexpr uint32_t kMemBytes = 131072;

  struct Faults {
    int corrupt_replies = 0;  // the next N replies go out with a damaged CRC
    int status_bad_crc = 0;   // the next N requests are answered with status 0x01
    int stale_replies = 0;    // the next N replies are preceded by a reply to SEQ-1 carrying junk
    int silent = 0;           // the next N requests get no reply
    int late = 0;             // the next N replies are held back and sent before the next request's
    Bytes noise;              // sent before every reply (and instead of it while silent)
    bool bad_magic = false;   // identify answers "XYZ1"
    bool split = false;       // replies go out in small pieces with pauses
  };

  struct Request {
    uint8_t cmd, seq;
    std::size_t len;
  };

  FakeBoard() {
    master_ = posix_openpt(O_RDWR | O_NOCTTY);
    EXPECT_GE(master_, 0);
    EXPECT_EQ(grantpt(master_), 0);
    EXPECT_EQ(unlockpt(master_), 0);
    char name[128];
    EXPECT_EQ(ptsname_r(master_, name, sizeof name), 0);
    slave_ = name;
    fcntl(master_, F_SETFL, fcntl(master_, F_GETFL) | O_NONBLOCK);
    regs_[0x000] = 0x314D5354;
    mem_.assign(kMemBytes, 0);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeBoard() { stop(); }

  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (master_ >= 0) ::close(master_);
    master_ = -1;
  }

  const std::string& port() const { return slave_; }
  template <class F>
  void with(F f) {
    std::lock_guard lock(m_);
    f(faults_);
  }
  std::vector<Request> log() {
    std::lock_guard lock(m_);
    return log_;
  }
  Bytes mem(uint32_t addr, std::size_t n) {
    std::lock_guard lock(m_);
    return Bytes(mem_.begin() + (addr - kMemBase), mem_.begin() + (addr - kMemBase + n));
  }
  uint32_t reg(uint16_t a) {
    std::lock_guard lock(m_);
    return regs_[a];
  }

 private:
  void serve() {
    Bytes in;
    while (!stop_) {
      pollfd p{master_, POLLIN, 0};
      const int r = ::poll(&p, 1, 10);
      if (r <= 0) continue;
      uint8_t buf[4096];
      const ssize_t n = ::read(master_, buf, sizeof buf);
      if (n <= 0) {  // no client has the slave open
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        continue;
      }
      in.insert(in.end(), buf, buf + n);
      // Requests: 0xA5 CMD SEQ LEN(2) PAYLOAD CRC(2).
      for (;;) {
        const auto start = std::find(in.begin(), in.end(), 0xa5);
        in.erase(in.begin(), start);
        if (in.size() < 5) break;
        const std::size_t len = in[3] | in[4] << 8;
        if (in.size() < len + 7) break;
        Bytes frame(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(len + 7));
        in.erase(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(len + 7));
        handle(frame);
      }
    }
  }

  void send(const Bytes& bytes, bool split) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const std::size_t piece = split ? std::min<std::size_t>(3, bytes.size() - done) : bytes.size() - done;
      const ssize_t n = ::write(master_, bytes.data() + done, piece);
      if (n > 0) done += static_cast<std::size_t>(n);
      else std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (split) std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
  }

  void handle(const Bytes& f) {
    std::lock_guard lock(m_);
    const uint8_t cmd = f[1], seq = f[2];
    const std::size_t len = f.size() - 7;
    log_.push_back({cmd, seq, len});
    const uint8_t* p = f.data() + 5;
    const uint16_t crc = static_cast<uint16_t>(f[f.size() - 2] | f[f.size() - 1] << 8);

    uint8_t status = 0;
    Bytes out;
    if (crc != ref_crc(f.data() + 1, f.size() - 3)) {
      status = 1;
    } else if (faults_.status_bad_crc > 0) {
      --faults_.status_bad_crc;
      status = 1;
    } else if (cmd == 1) {
      if (len != 6) status = 2;
      else if ((p[0] | p[1] << 8) > 0xfff) status = 4;  // like the bridge: the GPU decodes 12 bits
      else regs_[static_cast<uint16_t>(p[0] | p[1] << 8)] = le32(p + 2);
    } else if (cmd == 2) {
      const uint16_t a = static_cast<uint16_t>(p[0] | p[1] << 8);
      if (len != 2) status = 2;
      else if (a > 0xfff) status = 4;
      else if (!regs_.count(a)) status = 5;
      else out = {static_cast<uint8_t>(regs_[a]), static_cast<uint8_t>(regs_[a] >> 8), static_cast<uint8_t>(regs_[a] >> 16),
                  static_cast<uint8_t>(regs_[a] >> 24)};
    } else if (cmd == 3) {
      const uint32_t a = le32(p);
      const std::size_t n = len - 4;
      if (len < 5 || len > 1028) status = 2;
      else if (a < kMemBase || a + n > kMemBase + kMemBytes) status = 4;
      else std::copy(p + 4, p + len, mem_.begin() + (a - kMemBase));
    } else if (cmd == 4) {
      const uint32_t a = le32(p);
      const std::size_t n = p[4] | p[5] << 8;
      if (len != 6 || n == 0 || n > 1024) status = 2;
      else if (a < kMemBase || a + n > kMemBase + kMemBytes) status = 4;
      else out.assign(mem_.begin() + (a - kMemBase), mem_.begin() + (a - kMemBase + n));
    } else if (cmd == 5) {
      out = {'T', 'S', 'B', '1', 1, 2, 0, 0};
      if (faults_.bad_magic) out[0] = 'X', out[1] = 'Y', out[2] = 'Z';
      for (uint32_t v : {kMemBase, kMemBytes, 60000000u, 3000000u})
        for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    } else {
      status = 3;
    }
    if (status != 0) out.clear();

    Bytes reply = ref_reply(status, seq, out);
    if (!held_.empty()) {
      send(held_, false);
      held_.clear();
    }
    if (!faults_.noise.empty()) send(faults_.noise, false);
    if (faults_.silent > 0) {
      --faults_.silent;
      return;
    }
    if (faults_.late > 0) {
      --faults_.late;
      held_ = reply;
      return;
    }
    if (faults_.stale_replies > 0) {
      --faults_.stale_replies;
      send(ref_reply(0, static_cast<uint8_t>(seq - 1), Bytes(out.size(), 0xEE)), false);
    }
    if (faults_.corrupt_replies > 0) {
      --faults_.corrupt_replies;
      reply[reply.size() - 1] ^= 0x5a;
    }
    send(reply, faults_.split);
  }

  int master_ = -1;
  std::string slave_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex m_;
  Faults faults_;
  std::vector<Request> log_;
  std::map<uint16_t, uint32_t> regs_;
  Bytes mem_;
  Bytes held_;
};

LinkOptions quiet(double timeout_s = 2.0) {
  LinkOptions o;
  o.timeout_s = timeout_s;
  o.progress = false;
  return o;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const BoardError& e) {
    return e.what();
  }
  return "(no BoardError)";
}

TEST(BoardLink, IdentifyAndRegisters) {
  FakeBoard board;
  board.with([](auto& f) { f.split = true; });
  BoardLink link(board.port(), quiet());
  const BoardInfo info = link.identify();
  EXPECT_EQ(info.version, 1);
  EXPECT_EQ(info.num_sms, 2);
  EXPECT_EQ(info.mem_base, FakeBoard::kMemBase);
  EXPECT_EQ(info.mem_bytes, FakeBoard::kMemBytes);
  EXPECT_EQ(info.clock_hz, 60000000u);
  EXPECT_EQ(info.baud, 3000000u);
  EXPECT_EQ(link.mmio_read(0x000), 0x314D5354u);
  link.mmio_write(0x024, 0x0A0D1311);  // bytes a tty in cooked mode would translate or swallow
  EXPECT_EQ(board.reg(0x024), 0x0A0D1311u);
  EXPECT_EQ(link.mmio_read(0x024), 0x0A0D1311u);
  // SEQ goes up by one per request.
  const auto log = board.log();
  ASSERT_EQ(log.size(), 4u);
  for (std::size_t i = 1; i < log.size(); ++i) EXPECT_EQ(log[i].seq, static_cast<uint8_t>(log[i - 1].seq + 1));
  EXPECT_EQ(link.counters().requests, 4u);
  EXPECT_EQ(link.counters().retries, 0u);
  EXPECT_EQ(link.counters().bytes_sent, 7u + 9u + 13u + 9u);
  EXPECT_EQ(link.counters().bytes_received, 31u + 11u + 7u + 11u);  // identify, read, write, read
}

TEST(BoardLink, MemoryRoundTripInChunks) {
  FakeBoard board;
  BoardLink link(board.port(), quiet());
  Bytes data(3000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 + (i >> 8));
  link.mem_write(0x00100010, data);
  EXPECT_EQ(board.mem(0x00100010, data.size()), data);  // what arrived, not only what came back
  Bytes back(data.size());
  link.mem_read(0x00100010, back);
  EXPECT_EQ(back, data);
  const auto log = board.log();
  ASSERT_EQ(log.size(), 6u);
  EXPECT_EQ(log[0].len, 4u + 1024u);
  EXPECT_EQ(log[1].len, 4u + 1024u);
  EXPECT_EQ(log[2].len, 4u + 952u);
  EXPECT_EQ(log[3].cmd, 4);
  EXPECT_EQ(link.mem_read(0x00100010 + 1024, 4), Bytes(data.begin() + 1024, data.begin() + 1028));
}

TEST(BoardLink, ResendsAfterBadCrcReplies) {
  FakeBoard board;
  board.with([](auto& f) { f.corrupt_replies = 2; });
  BoardLink link(board.port(), quiet());
  EXPECT_EQ(link.mmio_read(0x000), 0x314D5354u);
  EXPECT_EQ(link.counters().requests, 3u);
  EXPECT_EQ(link.counters().retries, 2u);
  EXPECT_EQ(link.counters().bad_crc_replies, 2u);
  const auto log = board.log();
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[1].seq, static_cast<uint8_t>(log[0].seq + 1));  // each resend is a new SEQ
  EXPECT_EQ(log[2].seq, static_cast<uint8_t>(log[1].seq + 1));
}

TEST(BoardLink, ResendsAfterStatusBadCrc) {
  FakeBoard board;
  board.with([](auto& f) { f.status_bad_crc = 3; });
  BoardLink link(board.port(), quiet());
  link.mmio_write(0x010, 5);
  EXPECT_EQ(board.reg(0x010), 5u);
  EXPECT_EQ(link.counters().retries, 3u);
}

TEST(BoardLink, GivesUpAfterRetries) {
  FakeBoard board;
  board.with([](auto& f) { f.corrupt_replies = 100; });
  BoardLink link(board.port(), quiet());
  const std::string msg = error_of([&] { link.mem_read(0x00100000, 16); });
  EXPECT_NE(msg.find("memory read of 16 bytes at 0x00100000 failed after 4 attempts: the last ended with a reply with a "
                     "bad CRC (5a 00 "),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("check the cable"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(port " + board.port() + ", 3000000 baud)"), std::string::npos) << msg;
  EXPECT_EQ(link.counters().requests, 4u);
  EXPECT_EQ(link.counters().retries, 3u);
  EXPECT_EQ(board.log().size(), 4u);

  LinkOptions no_retries = quiet();
  no_retries.retries = 0;
  FakeBoard board2;
  board2.with([](auto& f) { f.status_bad_crc = 1; });
  BoardLink link2(board2.port(), no_retries);
  const std::string msg2 = error_of([&] { link2.mmio_write(0x010, 1); });
  EXPECT_NE(msg2.find("MMIO write 0x010 failed after 1 attempt: the last ended with status 0x01: the board received the "
                      "request with a bad CRC"),
            std::string::npos)
      << msg2;
}

TEST(BoardLink, DropsRepliesWithAnotherSeq) {
  FakeBoard board;
  board.with([](auto& f) { f.stale_replies = 1; });
  BoardLink link(board.port(), quiet());
  EXPECT_EQ(link.mmio_read(0x000), 0x314D5354u);  // not the stale reply's 0xEEEEEEEE
  EXPECT_EQ(link.counters().dropped_replies, 1u);
  EXPECT_EQ(link.counters().retries, 0u);
}

TEST(BoardLink, TimeoutMessageAndLateReplyDropped) {
  FakeBoard board;
  board.with([](auto& f) { f.late = 1; });
  BoardLink link(board.port(), quiet(0.3));
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = error_of([&] { link.mmio_read(0x014); });
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(msg, "no reply to MMIO read 0x014 within 0.3 s (port " + board.port() +
                     ", 3000000 baud): is the board programmed with the TeslaSM bitstream and connected?");
  EXPECT_GE(waited, 0.29);
  EXPECT_LT(waited, 1.5);
  // The held reply arrives before the next request's: the link drops it (wrong SEQ).
  EXPECT_EQ(link.mmio_read(0x000), 0x314D5354u);
  EXPECT_EQ(link.counters().dropped_replies, 1u);
}

TEST(BoardLink, IdentifyOfSomethingElse) {
  {
    FakeBoard board;
    board.with([](auto& f) { f.bad_magic = true; });
    BoardLink link(board.port(), quiet());
    const std::string msg = error_of([&] { link.identify(); });
    EXPECT_NE(msg.find("identify on " + board.port() + ": the reply is not a TeslaSM board's (24 bytes starting 'XYZ1'"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("is the board programmed with the TeslaSM bitstream?"), std::string::npos) << msg;
  }
  {
    FakeBoard board;
    board.with([](auto& f) {
      f.silent = 1;
      f.noise = Bytes{0x80, 0x00, 0xf8, 0x78, 0x00};  // what a wrong baud rate makes of bytes
    });
    BoardLink link(board.port(), quiet(0.2));
    const std::string msg = error_of([&] { link.identify(); });
    EXPECT_EQ(msg, "no reply to identify within 0.2 s (port " + board.port() +
                       ", 3000000 baud): is the board programmed with the TeslaSM bitstream and connected?; received 5 "
                       "bytes that are not a reply frame (80 00 f8 78 00): is the port's baud rate the bitstream's?");
  }
}

TEST(BoardLink, NoiseBeforeRepliesIsSkipped) {
  FakeBoard board;
  board.with([](auto& f) { f.noise = Bytes{0x00, 0xff, 0xa5}; });
  BoardLink link(board.port(), quiet());
  EXPECT_EQ(link.mmio_read(0x000), 0x314D5354u);
  EXPECT_EQ(link.mmio_read(0x000), 0x314D5354u);
  EXPECT_EQ(link.counters().garbage_bytes, 6u);
}

TEST(BoardLink, ErrorStatuses) {
  FakeBoard board;
  BoardLink link(board.port(), quiet());
  link.identify();
  std::string msg = error_of([&] { link.mem_write(0x00000100, Bytes(16, 1)); });
  EXPECT_EQ(msg, "memory write of 16 bytes at 0x00000100 failed: the board answered 'address out of range' (status "
                 "0x04): the address is outside the board's memory (0x00100000..0x0011ffff) (port " +
                     board.port() + ", 3000000 baud)");
  msg = error_of([&] { link.mmio_read(0x0fc); });
  EXPECT_NE(msg.find("MMIO read 0x0fc failed: the board answered 'MMIO read timeout' (status 0x05): the GPU did not "
                     "answer the register read"),
            std::string::npos)
      << msg;
  msg = error_of([&] { link.mmio_write(0x1000, 1); });
  EXPECT_EQ(msg, "MMIO write 0x1000 failed: the board answered 'address out of range' (status 0x04): the address is "
                 "outside the GPU's registers (0x000..0xfff) (port " +
                     board.port() + ", 3000000 baud)");
  msg = error_of([&] { link.mmio_read(0x10000); });
  EXPECT_EQ(msg, "MMIO read 0x10000: the address does not fit the protocol's 16 bits");
  EXPECT_EQ(link.counters().retries, 0u);
}

TEST(BoardLink, ProgressLine) {
  FakeBoard board;
  const Bytes data(70 * 1024, 0x42);
  {
    BoardLink link(board.port(), quiet());  // progress off
    testing::internal::CaptureStderr();
    link.mem_write(0x00100000, data);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
  {
    LinkOptions o = quiet();
    o.progress = true;
    BoardLink link(board.port(), o);
    testing::internal::CaptureStderr();
    link.mem_write(0x00100000, Bytes(64 * 1024, 1));  // 64 KiB: not over the threshold
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    testing::internal::CaptureStderr();
    Bytes back(data.size());
    link.mem_write(0x00100000, data);
    link.mem_read(0x00100000, back);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(back, data);
    EXPECT_NE(err.find("\rboard: writing 70 KiB to 0x00100000: 0 %"), std::string::npos) << err;
    EXPECT_NE(err.find("\rboard: writing 70 KiB to 0x00100000: 37 %"), std::string::npos) << err;
    EXPECT_NE(err.find("\rboard: writing 70 KiB to 0x00100000: 100 %\n"), std::string::npos) << err;
    EXPECT_NE(err.find("\rboard: reading 70 KiB from 0x00100000: 100 %\n"), std::string::npos) << err;
  }
}

TEST(BoardLink, BoardGoneAway) {
  auto board = std::make_unique<FakeBoard>();
  BoardLink link(board->port(), quiet(0.5));
  EXPECT_EQ(link.mmio_read(0x000), 0x314D5354u);
  const std::string port = board->port();
  board.reset();  // the master closes: like a simulator that stopped
  const std::string msg = error_of([&] { link.mmio_read(0x000); });
  EXPECT_NE(msg.find("serial port " + port + ": "), std::string::npos) << msg;
  EXPECT_NE(msg.find("Input/output error (the device went away"), std::string::npos) << msg;
}

// ---- SerialPort ---------------------------------------------------------------------------------------

TEST(SerialPort, OpenErrors) {
  std::string msg = error_of([] { SerialPort p("/nonexistent/ttyUSB9", 3000000); });
  EXPECT_EQ(msg.rfind("cannot open serial port /nonexistent/ttyUSB9: No such file or directory (is the board plugged in?", 0), 0u)
      << msg;
  msg = error_of([] { SerialPort p("/dev/null", 3000000); });
  EXPECT_EQ(msg.rfind("cannot use /dev/null as a serial port: Inappropriate ioctl for device (it is not a terminal device", 0), 0u)
      << msg;
  msg = error_of([] { SerialPort p("/dev/null", 2500001); });
  EXPECT_EQ(msg.rfind("cannot use baud rate 2500001 on serial port /dev/null: not a standard rate of this system (supported: 50, ", 0), 0u)
      << msg;
  EXPECT_NE(msg.find("3000000"), std::string::npos);
  const auto& bauds = supported_bauds();
  EXPECT_TRUE(std::is_sorted(bauds.begin(), bauds.end()));
}

TEST(SerialPort, InUse) {
  FakeBoard board;
  SerialPort first(board.port(), 115200);
  const std::string msg = error_of([&] { SerialPort second(board.port(), 115200); });
  EXPECT_NE(msg.find("it is in use by another program"), std::string::npos) << msg;
  first.close();
  SerialPort third(board.port(), 115200);  // free again
  EXPECT_TRUE(third.is_open());
}

TEST(SerialPort, RawModeAndReadTimeout) {
  FakeBoard board;
  SerialPort port(board.port(), 3000000);
  termios tio{};
  ASSERT_EQ(tcgetattr(port.fd(), &tio), 0);
  EXPECT_EQ(cfgetospeed(&tio), static_cast<speed_t>(B3000000));
  EXPECT_EQ(cfgetispeed(&tio), static_cast<speed_t>(B3000000));
  EXPECT_EQ(tio.c_cflag & CSIZE, static_cast<tcflag_t>(CS8));
  EXPECT_EQ(tio.c_cflag & (PARENB | CSTOPB | CRTSCTS), 0u);
  EXPECT_EQ(tio.c_iflag & (IXON | IXOFF | ICRNL), 0u);
  EXPECT_EQ(tio.c_lflag & (ICANON | ECHO | ISIG), 0u);
  EXPECT_EQ(tio.c_oflag & OPOST, 0u);
  uint8_t buf[16];
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(port.read_some(buf, 0.1), 0u);
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.09);
}


// ---- end to end: BoardLink against tsm-board-sim ---------------------------------------------------------

extern "C" char** environ;

TEST(BoardSim, EndToEnd) {
  const char* sim = std::getenv("TSM_BOARD_SIM");
  if (!sim || !*sim) GTEST_SKIP() << "set TSM_BOARD_SIM to the tsm-board-sim executable";
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tsm_board_sim_test." + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string port_file = (dir / "port").string(), log_file = (dir / "sim.log").string();

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> args{sim, "--port-file", port_file, "--exit-on-close", "--max-seconds", "240"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, sim, &actions, nullptr, argv.data(), environ), 0) << sim;
  posix_spawn_file_actions_destroy(&actions);
  auto sim_log = [&] {
    std::ifstream in(log_file);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  struct Reaper {  // never leave the simulator running when an assertion fails
    pid_t pid;
    ~Reaper() {
      if (pid > 0) {
        ::kill(pid, SIGTERM);
        ::waitpid(pid, nullptr, 0);
      }
    }
  } reaper{pid};

  std::string port;
  for (int i = 0; i < 600 && port.empty(); ++i) {
    std::ifstream in(port_file);
    std::getline(in, port);
    if (port.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(port.empty()) << "tsm-board-sim wrote no port file; its log:\n" << sim_log();

  {
    LinkOptions o = quiet(60.0);
    BoardLink link(port, o);
    const BoardInfo info = link.identify();
    EXPECT_EQ(info.version, 1);
    EXPECT_GE(info.num_sms, 1);
    EXPECT_GT(info.mem_bytes, 4096u);
    EXPECT_EQ(link.mmio_read(0x000), 0x314D5354u);  // the GPU's ID register: "TSM1"
    EXPECT_EQ(link.mmio_read(0x004), info.num_sms);  // NUM_SMS

    Bytes data(2 * 1024 + 5);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 13 + (i >> 8) + 1);
    link.mem_write(info.mem_base, data);
    EXPECT_EQ(link.mem_read(info.mem_base, data.size()), data);
    // The last bytes of the memory, unaligned.
    const Bytes tail{0xa5, 0x5a, 0x0a, 0x0d, 0x11, 0x13, 0x03};
    const uint32_t end = info.mem_base + info.mem_bytes;
    link.mem_write(end - static_cast<uint32_t>(tail.size()), tail);
    EXPECT_EQ(link.mem_read(end - static_cast<uint32_t>(tail.size()), tail.size()), tail);
    EXPECT_EQ(link.mem_read(info.mem_base, 4), Bytes(data.begin(), data.begin() + 4));  // not overwritten
    // Past the end: the board answers "address out of range".
    const std::string msg = error_of([&] { link.mem_read(end - 2, 4); });
    EXPECT_NE(msg.find("failed: the board answered 'address out of range' (status 0x04)"), std::string::npos) << msg;
    EXPECT_EQ(link.counters().retries, 0u);
    EXPECT_EQ(link.counters().dropped_replies, 0u);
    EXPECT_EQ(link.counters().garbage_bytes, 0u);
  }  // the link closes the port: the simulator exits (--exit-on-close)

  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 300 && done == 0; ++i) {
    done = ::waitpid(pid, &status, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(done, pid) << "tsm-board-sim did not exit after the port was closed; its log:\n" << sim_log();
  reaper.pid = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << sim_log();
  const std::string log = sim_log();
  EXPECT_NE(log.find("tsm-board-sim: stopped (the client closed the serial port): "), std::string::npos) << log;
  EXPECT_NE(log.find(" clocks simulated"), std::string::npos) << log;
  std::cerr << log;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tsm::board
