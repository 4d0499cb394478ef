#include "capi/thread_messages.hpp"

namespace pmx::capi {

const char* thread_messages::get() const {
  std::lock_guard lock(mutex_);
  auto it = by_thread_.find(std::this_thread::get_id());
  return it == by_thread_.end() ? "" : it->second.c_str();
}

void thread_messages::set(const std::string& message) noexcept {
  try {
    std::lock_guard lock(mutex_);
    by_thread_[std::this_thread::get_id()] = message;
  } catch (...) {
  }
}

void thread_messages::clear() noexcept {
  std::lock_guard lock(mutex_);
  // Empty maps are the common case (no call ever failed): skip the hash then.
  if (!by_thread_.empty()) by_thread_.erase(std::this_thread::get_id());
}

}  // namespace pmx::capi
