// SPDX-License-Identifier: BSD-3-Clause
// Slurm hostlist expansion (see hostlist.h). An item is parsed into parts, each
// a literal or a bracket group of ranges; the names are produced from those
// without building any intermediate list, so that first_host() of a list of a
// million nodes costs nothing and a bad range fails before any allocation.
#include "bootstrap/hostlist.h"

#include <cstdint>

namespace gshmem::bootstrap {
namespace {

struct Range {
  uint64_t lo = 0, hi = 0;
  size_t width = 0;  // digits of lo as written: "[001-004]" keeps 3
};

struct Part {
  std::string text;           // a literal, when ranges is empty
  std::vector<Range> ranges;  // a bracket group
  uint64_t count() const {
    uint64_t n = 0;
    for (const Range& r : ranges) {
      const uint64_t c = r.hi - r.lo + 1;
      n = n > UINT64_MAX - c ? UINT64_MAX : n + c;  // saturates: only "too many" matters
    }
    return n;
  }
  // The k-th value of the group (k < count()), zero-padded to the range's width.
  std::string value(uint64_t k) const {
    for (const Range& r : ranges) {
      const uint64_t n = r.hi - r.lo + 1;
      if (k >= n) {
        k -= n;
        continue;
      }
      std::string s = std::to_string(r.lo + k);
      if (s.size() < r.width) s.insert(0, r.width - s.size(), '0');
      return s;
    }
    return std::string();
  }
};

using Item = std::vector<Part>;

constexpr size_t kMaxDigits = 18;  // values stay far below 2^64

std::string where(const std::string& text, size_t at) {
  return " at offset " + std::to_string(at) + " of \"" + text + "\"";
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// One range "N" or "N-M" of text[b, e).
bool parse_range(const std::string& text, size_t b, size_t e, Range* r, std::string* err) {
  const std::string s = text.substr(b, e - b);
  if (s.empty()) {
    *err = "empty range in brackets" + where(text, b);
    return false;
  }
  const size_t dash = s.find('-');
  const std::string lo = s.substr(0, dash);
  const std::string hi = dash == std::string::npos ? lo : s.substr(dash + 1);
  for (const std::string* n : {&lo, &hi}) {
    if (n->empty() || n->size() > kMaxDigits || n->find_first_not_of("0123456789") != std::string::npos) {
      *err = "\"" + s + "\" is not a number or a range N-M of numbers" + where(text, b);
      return false;
    }
  }
  r->lo = std::stoull(lo);
  r->hi = std::stoull(hi);
  r->width = lo.size();
  if (r->lo > r->hi) {
    *err = "range \"" + s + "\" runs backwards" + where(text, b);
    return false;
  }
  return true;
}

// The items of the whole list, each checked; *total = the number of names (not counted, and
// not limited, when max_hosts is 0).
bool parse(const std::string& raw, std::vector<Item>* items, uint64_t* total, size_t max_hosts, std::string* err) {
  size_t first = 0, last = raw.size();
  while (first < last && is_space(raw[first])) ++first;
  while (last > first && is_space(raw[last - 1])) --last;
  const std::string text = raw.substr(first, last - first);
  if (text.empty()) {
    *err = "the host list is empty";
    return false;
  }
  *total = 0;
  Item item;
  std::string literal;
  auto end_item = [&](size_t at) {
    if (!literal.empty()) item.push_back(Part{literal, {}});
    literal.clear();
    if (item.empty()) {
      *err = "empty host name" + where(text, at);
      return false;
    }
    uint64_t n = 1;
    for (const Part& p : item)
      if (max_hosts && !p.ranges.empty()) {
        const uint64_t c = p.count();
        n = n > max_hosts / c ? max_hosts + 1 : n * c;  // saturates: only "too many" matters
      }
    *total += n;
    if (max_hosts && *total > max_hosts) {
      *err = "more than " + std::to_string(max_hosts) + " hosts in \"" + text + "\"";
      return false;
    }
    items->push_back(std::move(item));
    item.clear();
    return true;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ',') {
      if (!end_item(i)) return false;
    } else if (c == '[') {
      const size_t close = text.find_first_of("[]", i + 1);
      if (close == std::string::npos || text[close] == '[') {
        *err = std::string(close == std::string::npos ? "unbalanced '['" : "nested '['") + where(text, i);
        return false;
      }
      if (close == i + 1) {
        *err = "empty brackets" + where(text, i);
        return false;
      }
      if (!literal.empty()) item.push_back(Part{literal, {}});
      literal.clear();
      Part group;
      size_t b = i + 1;
      while (b <= close) {
        size_t e = text.find(',', b);
        if (e == std::string::npos || e > close) e = close;
        Range r;
        if (!parse_range(text, b, e, &r, err)) return false;
        group.ranges.push_back(r);
        b = e + 1;
      }
      item.push_back(std::move(group));
      i = close;
    } else if (c == ']') {
      *err = "']' without '['" + where(text, i);
      return false;
    } else if (is_space(c) || static_cast<unsigned char>(c) < 0x20) {
      *err = "unexpected white space or control character" + where(text, i);
      return false;
    } else {
      literal += c;
    }
  }
  return end_item(text.size());
}

// Name number k of an item, the first group varying slowest.
std::string name_of(const Item& item, uint64_t k) {
  std::vector<uint64_t> idx(item.size(), 0);
  for (size_t p = item.size(); p-- > 0;) {
    if (item[p].ranges.empty()) continue;
    const uint64_t c = item[p].count();
    idx[p] = k % c;
    k /= c;
  }
  std::string s;
  for (size_t p = 0; p < item.size(); ++p) s += item[p].ranges.empty() ? item[p].text : item[p].value(idx[p]);
  return s;
}

uint64_t names_in(const Item& item) {
  uint64_t n = 1;
  for (const Part& p : item)
    if (!p.ranges.empty()) n *= p.count();
  return n;
}

}  // namespace

bool expand_hostlist(const std::string& text, std::vector<std::string>* hosts, std::string* err, size_t max_hosts) {
  std::vector<Item> items;
  uint64_t total = 0;
  if (!parse(text, &items, &total, max_hosts, err)) return false;
  hosts->clear();
  hosts->reserve(static_cast<size_t>(total));
  for (const Item& item : items)
    for (uint64_t k = 0, n = names_in(item); k < n; ++k) hosts->push_back(name_of(item, k));
  return true;
}

bool first_host(const std::string& text, std::string* host, std::string* err) {
  std::vector<Item> items;
  uint64_t total = 0;
  if (!parse(text, &items, &total, /*max_hosts=*/0, err)) return false;  // syntax only: any count
  *host = name_of(items.front(), 0);
  return true;
}

}  // namespace gshmem::bootstrap
