#include "io/text_stream.hpp"

#if PMX_HAVE_ZSTD
#include <zstd.h>
#endif

#include <cerrno>
#include <cstring>

#include "panoramix/error.hpp"

namespace pmx::io {
namespace {

constexpr size_t chunk_bytes = size_t{1} << 20;
constexpr unsigned char zstd_magic[4] = {0x28, 0xb5, 0x2f, 0xfd};

}  // namespace

struct text_stream::zstd_state {
#if PMX_HAVE_ZSTD
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  std::vector<char> in = std::vector<char>(ZSTD_DStreamInSize());
  ZSTD_inBuffer input{in.data(), 0, 0};
  size_t frame_left = 0;  // ZSTD_decompressStream's last hint: 0 at a frame boundary
  ~zstd_state() { ZSTD_freeDCtx(ctx); }
#endif
};

text_stream::text_stream(const std::string& path, const std::string& what) : path_(path) {
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) throw input_error(what + " file '" + path + "' cannot be opened: " + std::strerror(errno));
  unsigned char head[4] = {0, 0, 0, 0};
  const size_t got = std::fread(head, 1, 4, file_);
  const bool zst = got == 4 && std::memcmp(head, zstd_magic, 4) == 0;
  std::rewind(file_);
  if (zst) {
#if PMX_HAVE_ZSTD
    zstd_ = std::make_unique<zstd_state>();
#else
    std::fclose(file_);
    throw unsupported_error(path + ": Zstd-compressed, and this build of panoramix has no zstd (install "
                            "libzstd-dev and rebuild, or decompress it with `zstd -d`)");
#endif
  }
  buf_.resize(2 * chunk_bytes);
}

text_stream::~text_stream() {
  if (file_) std::fclose(file_);
}

bool text_stream::fill() {
  if (eof_) return false;
  // Keep the unread tail at the front, then make room for one more chunk.
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_, begin_ = 0;
  }
  if (buf_.size() - end_ < chunk_bytes) buf_.resize(end_ + chunk_bytes);
  if (!zstd_) {
    const size_t got = std::fread(buf_.data() + end_, 1, chunk_bytes, file_);
    if (got == 0) {
      if (std::ferror(file_)) throw input_error(path_ + ": read error: " + std::strerror(errno));
      eof_ = true;
      return false;
    }
    end_ += got;
    return true;
  }
#if PMX_HAVE_ZSTD
  zstd_state& z = *zstd_;
  ZSTD_outBuffer out{buf_.data() + end_, chunk_bytes, 0};
  while (out.pos == 0) {
    if (z.input.pos == z.input.size) {
      z.input.size = std::fread(z.in.data(), 1, z.in.size(), file_), z.input.pos = 0;
      if (z.input.size == 0) {
        if (std::ferror(file_)) throw input_error(path_ + ": read error: " + std::strerror(errno));
        if (z.frame_left != 0) throw input_error(path_ + ": truncated Zstd stream (the file ends inside a frame)");
        eof_ = true;
        return false;
      }
    }
    const size_t r = ZSTD_decompressStream(z.ctx, &out, &z.input);
    if (ZSTD_isError(r)) throw input_error(path_ + ": corrupt Zstd stream (" + ZSTD_getErrorName(r) + ")");
    z.frame_left = r;
  }
  end_ += out.pos;
#endif
  return true;
}

bool text_stream::next(std::string_view& line) {
  size_t scanned = begin_;
  for (;;) {
    const void* nl = std::memchr(buf_.data() + scanned, '\n', end_ - scanned);
    if (nl) {
      const size_t at = static_cast<size_t>(static_cast<const char*>(nl) - buf_.data());
      line = std::string_view(buf_.data() + begin_, at - begin_);
      begin_ = at + 1;
      break;
    }
    scanned = end_ - begin_;  // offset from the front once fill() moves the tail there
    if (!fill()) {
      if (begin_ == end_) return false;
      line = std::string_view(buf_.data() + begin_, end_ - begin_);  // last line without '\n'
      begin_ = end_;
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++line_number_;
  return true;
}

}  // namespace pmx::io
