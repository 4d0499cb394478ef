// Last-error messages of one C API object, kept per calling thread: a thread reads the message of
// its own most recent call on the object, whatever other threads do with the same object meanwhile.
// An entry lives from a failed call to the thread's next successful call on the object (or the
// object's end), so the map holds at most one message per thread whose last call failed.
#pragma once
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

namespace pmx::capi {

class thread_messages {
 public:
  /// The calling thread's message, or "". The pointer stays valid until this thread's next set()
  /// or clear() on this object: only the owning thread changes or erases its entry, and
  /// unordered_map keeps element addresses stable when other threads insert (rehashing moves no
  /// node).
  const char* get() const;
  /// Records the calling thread's message. Never throws (a message that cannot be stored is lost;
  /// the status code still tells the failure).
  void set(const std::string& message) noexcept;
  /// Forgets the calling thread's message (after a successful call). Never throws.
  void clear() noexcept;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::thread::id, std::string> by_thread_;
};

}  // namespace pmx::capi
