// A vector that keeps its first N elements inline: the polynomials behind every relation and sum
// have one to three terms, and a heap block per polynomial was a tenth of a ShapeEnv operation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <new>
#include <utility>

namespace sf::sym {

template <typename T, size_t N>
class SmallVector {
 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  SmallVector(std::initializer_list<T> init) {
    reserve(init.size());
    for (const T& v : init) push_back(v);
  }
  SmallVector(const SmallVector& o) {
    reserve(o.size_);
    std::uninitialized_copy(o.begin(), o.end(), data_);
    size_ = o.size_;
  }
  SmallVector(SmallVector&& o) noexcept { take(std::move(o)); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      SmallVector copy(o);
      clear_and_free();
      take(std::move(copy));
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      clear_and_free();
      take(std::move(o));
    }
    return *this;
  }
  ~SmallVector() { clear_and_free(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void reserve(size_t n) {
    if (n <= capacity_) return;
    T* fresh = static_cast<T*>(::operator new(n * sizeof(T)));
    std::uninitialized_move(data_, data_ + size_, fresh);
    std::destroy(data_, data_ + size_);
    if (!is_inline()) ::operator delete(data_);
    data_ = fresh;
    capacity_ = n;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    T* slot;
    if (size_ == capacity_) {
      // The arguments may refer to an element (v.push_back(v[0])): build the new one first.
      T made(std::forward<Args>(args)...);
      reserve(2 * capacity_);
      slot = new (data_ + size_) T(std::move(made));
    } else {
      slot = new (data_ + size_) T(std::forward<Args>(args)...);
    }
    ++size_;
    return *slot;
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  // Removes [first, last), moving the tail down (std::vector::erase).
  T* erase(T* first, T* last) {
    T* new_end = std::move(last, end(), first);
    std::destroy(new_end, end());
    size_ -= static_cast<size_t>(last - first);
    return first;
  }
  void pop_back() { erase(end() - 1, end()); }
  void clear() {
    std::destroy(begin(), end());
    size_ = 0;
  }

 private:
  bool is_inline() const { return data_ == inline_data(); }
  T* inline_data() { return reinterpret_cast<T*>(inline_); }
  const T* inline_data() const { return reinterpret_cast<const T*>(inline_); }
  void clear_and_free() {
    clear();
    if (!is_inline()) ::operator delete(data_);
    data_ = inline_data();
    capacity_ = N;
  }
  // Takes o's elements (this is empty and inline): its block when on the heap, else moved ones.
  void take(SmallVector&& o) {
    if (o.is_inline()) {
      std::uninitialized_move(o.begin(), o.end(), data_);
      size_ = o.size_;
      o.clear();
      return;
    }
    data_ = o.data_;
    size_ = o.size_;
    capacity_ = o.capacity_;
    o.data_ = o.inline_data();
    o.size_ = 0;
    o.capacity_ = N;
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* data_ = inline_data();
  size_t size_ = 0;
  size_t capacity_ = N;
};

}  // namespace sf::sym
