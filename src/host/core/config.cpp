// SPDX-License-Identifier: BSD-3-Clause
#include "config.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "log.h"

namespace gshmem::config {
namespace {

bool iequals(const char* a, const char* b) {
  for (; *a && *b; ++a, ++b)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
  return *a == *b;
}

const char* accepted(const char* type) {
  if (!strcmp(type, "Size")) return "a byte count with optional K, M, G or T suffix (e.g. 512M, 2G)";
  if (!strcmp(type, "Int")) return "an integer";
  if (!strcmp(type, "Bool")) return "0/1, yes/no, true/false or on/off";
  if (!strcmp(type, "LogLevel")) return "NONE, ERROR, WARN, INFO or TRACE";
  return "a string";
}

// One parser per table type name: the table macros paste the type token
// (parse_##type), so each field gets the parser of its declared type.
bool parse_Size(const char* text, Size* out) { return parse_size(text, out); }
bool parse_Int(const char* text, Int* out) { return parse_int(text, out); }
bool parse_Bool(const char* text, Bool* out) { return parse_bool(text, out); }
bool parse_String(const char* text, String* out) {
  *out = text;
  return true;
}
bool parse_LogLevel(const char* text, LogLevel* out) { return parse_log_level(text, out); }

Values defaults() {
  Values v{};
#define GSHMEM_CONFIG_DEFAULT(field, env, type, def, help) parse_##type(def, &v.field);
  GSHMEM_CONFIG_TABLE(GSHMEM_CONFIG_DEFAULT)
#undef GSHMEM_CONFIG_DEFAULT
  return v;
}

Values g_values = defaults();

// A value as a message shows it: control and non-ASCII bytes as \xNN and at most 64 bytes, so
// that a bad value is always reported on one printable line.
std::string shown(const char* text) {
  std::string out;
  if (!text) return out;
  size_t i = 0;
  for (; text[i] && i < 64; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      char hex[8];
      snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text[i]) out += "...";
  return out;
}

// A bound as the variable's own syntax writes it: sizes with the largest exact suffix.
std::string bound_text(Size v) {
  static const char* suffix[] = {"", "K", "M", "G", "T"};
  int i = 0;
  while (i < 4 && v && v % 1024 == 0) v /= 1024, ++i;
  return std::to_string(v) + suffix[i];
}
std::string bound_text(Int v) { return std::to_string(v); }
const char* bound_kind(Size) { return "a byte count"; }
const char* bound_kind(Int) { return "an integer"; }

// ", from LO to HI" for a variable with bounds (GSHMEM_CONFIG_RANGES), else "": a malformed
// value's message gives the range too, so one line says everything that is accepted.
std::string range_text(const char* env) {
  Values v{};
  (void)v;
#define GSHMEM_CONFIG_RANGE_TEXT(field, name, lo, hi)                            \
  if (!strcmp(env, name))                                                        \
    return ", from " + bound_text(static_cast<decltype(v.field)>(lo)) + " to " + \
           bound_text(static_cast<decltype(v.field)>(hi));
  GSHMEM_CONFIG_RANGES(GSHMEM_CONFIG_RANGE_TEXT)
#undef GSHMEM_CONFIG_RANGE_TEXT
  return "";
}

// The text of variable `env` if it is set, else that of its first alias set to a non-empty
// value (GSHMEM_CONFIG_ALIASES; *alias then names it, else it is NULL), else NULL.
const char* lookup(const char* env, const char** alias) {
  *alias = nullptr;
  if (const char* text = getenv(env)) return text;
#define GSHMEM_CONFIG_ALIAS_LOOKUP(name, other)     \
  if (!strcmp(env, name)) {                         \
    const char* text = getenv(other);               \
    if (text && *text) return *alias = other, text; \
  }
  GSHMEM_CONFIG_ALIASES(GSHMEM_CONFIG_ALIAS_LOOKUP)
#undef GSHMEM_CONFIG_ALIAS_LOOKUP
  return nullptr;
}

void print_aliases(FILE* out, const char* env) {
#define GSHMEM_CONFIG_ALIAS_PRINT(name, alias) \
  if (!strcmp(env, name)) fprintf(out, "    alias: %s (read when %s is unset)\n", alias, name);
  GSHMEM_CONFIG_ALIASES(GSHMEM_CONFIG_ALIAS_PRINT)
#undef GSHMEM_CONFIG_ALIAS_PRINT
}

}  // namespace

bool parse_size(const char* text, uint64_t* out) {
  // Digits first: strtoull would skip blanks and accept a sign (" -1" -> 2^64-1).
  if (!text || !isdigit((unsigned char)*text)) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || end == text) return false;
  uint64_t mult = 1;
  if (*end) {
    switch (toupper((unsigned char)*end)) {
      case 'K':
        mult = 1ull << 10;
        break;
      case 'M':
        mult = 1ull << 20;
        break;
      case 'G':
        mult = 1ull << 30;
        break;
      case 'T':
        mult = 1ull << 40;
        break;
      default:
        return false;
    }
    ++end;
    if (*end == 'i' || *end == 'I') ++end;  // "GiB"
    if (*end == 'b' || *end == 'B') ++end;
    if (*end) return false;
  }
  if (v > UINT64_MAX / mult) return false;
  *out = v * mult;
  return true;
}

bool parse_int(const char* text, long long* out) {
  if (!text || !*text) return false;
  errno = 0;
  char* end = nullptr;
  long long v = strtoll(text, &end, 10);
  if (errno || end == text || *end) return false;
  *out = v;
  return true;
}

bool parse_bool(const char* text, bool* out) {
  if (!text) return false;
  for (const char* t : {"1", "yes", "true", "on", "y"})
    if (iequals(text, t)) return *out = true, true;
  for (const char* f : {"0", "no", "false", "off", "n"})
    if (iequals(text, f)) return *out = false, true;
  return false;
}

bool parse_log_level(const char* text, int* out) {
  static const char* names[] = {"ERROR", "WARN", "INFO", "TRACE"};
  if (!text) return false;
  if (iequals(text, "NONE")) return *out = -1, true;
  for (int i = 0; i < 4; ++i)
    if (iequals(text, names[i])) return *out = i, true;
  return false;
}

Status load() {
  Values v = defaults();
  Status st = GSHMEM_SUCCESS;
#define GSHMEM_CONFIG_LOAD(field, env, type, def, help)                                                  \
  if (const char* alias = nullptr, *text = lookup(env, &alias); text && !parse_##type(text, &v.field)) { \
    if (alias) {                                                                                         \
      GSHMEM_LOG_WARN(                                                                                   \
          "gshmem_init: ignoring %s=\"%s\" (read as %s): expected %s; using the "                        \
          "default %s",                                                                                  \
          alias, shown(text).c_str(), env, accepted(#type), def);                                        \
    } else {                                                                                             \
      GSHMEM_LOG_ERROR(                                                                                  \
          "gshmem_init: environment variable %s=\"%s\" is malformed: expected %s%s "                     \
          "(default %s). Fix or unset it.",                                                              \
          env, shown(text).c_str(), accepted(#type), range_text(env).c_str(), def);                      \
      st = GSHMEM_ERROR_INVALID_VALUE;                                                                   \
    }                                                                                                    \
  }
  GSHMEM_CONFIG_TABLE(GSHMEM_CONFIG_LOAD)
#undef GSHMEM_CONFIG_LOAD
#define GSHMEM_CONFIG_CHECK_RANGE(field, env, lo, hi)                                                         \
  if (v.field < static_cast<decltype(v.field)>(lo) || v.field > static_cast<decltype(v.field)>(hi)) {         \
    const char* alias = nullptr;                                                                              \
    const char* text = lookup(env, &alias);                                                                   \
    const std::string lo_text = bound_text(static_cast<decltype(v.field)>(lo));                               \
    const std::string hi_text = bound_text(static_cast<decltype(v.field)>(hi));                               \
    const std::string def_text = bound_text(defaults().field);                                                \
    if (alias) {                                                                                              \
      GSHMEM_LOG_WARN(                                                                                        \
          "gshmem_init: ignoring %s=\"%s\" (read as %s): out of range (%s .. %s); using the "                 \
          "default %s",                                                                                       \
          alias, shown(text).c_str(), env, lo_text.c_str(), hi_text.c_str(), def_text.c_str());               \
      v.field = defaults().field;                                                                             \
    } else {                                                                                                  \
      GSHMEM_LOG_ERROR(                                                                                       \
          "gshmem_init: environment variable %s=\"%s\" is out of range: expected %s from %s to %s "           \
          "(default %s). Fix or unset it.",                                                                   \
          env, shown(text).c_str(), bound_kind(v.field), lo_text.c_str(), hi_text.c_str(), def_text.c_str()); \
      st = GSHMEM_ERROR_INVALID_VALUE;                                                                        \
    }                                                                                                         \
  }
  GSHMEM_CONFIG_RANGES(GSHMEM_CONFIG_CHECK_RANGE)
#undef GSHMEM_CONFIG_CHECK_RANGE
  if (st != GSHMEM_SUCCESS) return st;
  if (v.symmetric_size_max < v.symmetric_size) v.symmetric_size_max = v.symmetric_size;
  g_values = v;
  log::configure(v.debug, v.debug_file.c_str());
  return GSHMEM_SUCCESS;
}

const Values& get() { return g_values; }

void print_table(FILE* out, bool show_current) {
#define GSHMEM_CONFIG_PRINT(field, env, type, def, help)                 \
  fprintf(out, "%s (%s, default \"%s\")\n", env, #type, def);            \
  print_aliases(out, env);                                               \
  if (show_current) {                                                    \
    const char* alias = nullptr;                                         \
    const char* cur = lookup(env, &alias);                               \
    if (alias)                                                           \
      fprintf(out, "    current: %s (from %s)\n", cur, alias);           \
    else                                                                 \
      fprintf(out, "    current: %s\n", cur ? cur : "(unset: default)"); \
  }                                                                      \
  fprintf(out, "    %s\n\n", help);
  GSHMEM_CONFIG_TABLE(GSHMEM_CONFIG_PRINT)
#undef GSHMEM_CONFIG_PRINT
}

}  // namespace gshmem::config
