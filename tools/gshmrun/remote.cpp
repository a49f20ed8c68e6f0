// SPDX-License-Identifier: BSD-3-Clause
// gshmrun across hosts: host lists, placement and the remote command (remote.h).
#include "remote.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "options.h"

namespace gshmrun {
namespace {

// Host names go to the remote shell as an argument of their own: letters, digits, '.', '-', '_'
// only, and never a leading '-', which ssh would read as an option.
bool valid_host(const std::string& h) {
  if (h.empty() || h[0] == '-' || h[0] == '.') return false;
  for (char c : h)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
          c == '_'))
      return false;
  return true;
}

bool parse_entry(const std::string& host, const std::string& slots, const std::string& where,
                 std::vector<HostSlots>* out, std::string* err) {
  if (!valid_host(host)) {
    *err = where + ": '" + host + "' is not a host name (letters, digits, '.', '-' and '_'; not starting with '-')";
    return false;
  }
  long n = 1;
  if (!slots.empty()) {
    if (!parse_int_in_range(slots.c_str(), 1, kMaxPes, &n)) {
      *err = where + ": the number of slots of " + host + " must be 1.." + std::to_string(kMaxPes) + ", not '" + slots +
             "'";
      return false;
    }
  }
  out->push_back(HostSlots{host, static_cast<int>(n)});
  return true;
}

}  // namespace

bool parse_host_list(const std::string& text, std::vector<HostSlots>* out, std::string* err) {
  out->clear();
  if (text.empty()) {
    *err = "-H needs a list of hosts (host[:slots],...)";
    return false;
  }
  size_t b = 0;
  while (b <= text.size()) {
    size_t e = text.find(',', b);
    if (e == std::string::npos) e = text.size();
    const std::string entry = text.substr(b, e - b);
    const size_t colon = entry.find(':');
    const std::string where = "-H entry '" + entry + "'";
    if (entry.empty()) {
      *err = "-H '" + text + "' has an empty entry";
      return false;
    }
    if (colon != std::string::npos && colon + 1 == entry.size()) {
      *err = where + ": the number of slots is missing after ':'";
      return false;
    }
    if (!parse_entry(entry.substr(0, colon), colon == std::string::npos ? "" : entry.substr(colon + 1), where, out,
                     err))
      return false;
    b = e + 1;
  }
  return true;
}

bool parse_hostfile(const std::string& text, std::vector<HostSlots>* out, std::string* err) {
  out->clear();
  std::istringstream in(text);
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string host, word, slots;
    if (!(words >> host)) continue;  // blank or comment
    const std::string where = "hostfile line " + std::to_string(no);
    if (size_t colon = host.find(':'); colon != std::string::npos) {
      slots = host.substr(colon + 1);
      host.resize(colon);
      if (slots.empty()) {
        *err = where + ": the number of slots is missing after ':'";
        return false;
      }
    }
    while (words >> word) {
      if (word.compare(0, 6, "slots=") == 0 && slots.empty()) {
        slots = word.substr(6);
        if (slots.empty()) slots = "(empty)";
      } else if (word.compare(0, 10, "max_slots=") == 0) {
        // Open MPI's hostfile keyword: gshmrun never oversubscribes, so it changes nothing.
      } else {
        *err = where + ": unexpected '" + word + "' (the form is \"host\", \"host:N\" or \"host slots=N\")";
        return false;
      }
    }
    if (!parse_entry(host, slots, where, out, err)) return false;
  }
  if (out->empty()) {
    *err = "the hostfile names no host";
    return false;
  }
  return true;
}

int total_slots(const std::vector<HostSlots>& hosts) {
  long n = 0;
  for (const HostSlots& h : hosts) n += h.slots;
  return n > kMaxPes ? kMaxPes + 1 : static_cast<int>(n);
}

std::vector<Placement> place(const std::vector<HostSlots>& hosts, int np) {
  std::vector<Placement> p;
  for (const HostSlots& h : hosts)
    for (int s = 0; s < h.slots && static_cast<int>(p.size()) < np; ++s) p.push_back(Placement{h.host, 0, 0});
  std::map<std::string, int> count;
  for (Placement& x : p) x.local_rank = count[x.host]++;
  for (Placement& x : p) x.local_size = count[x.host];
  return p;
}

int distinct_hosts(const std::vector<Placement>& p) {
  std::map<std::string, int> seen;
  for (const Placement& x : p) seen[x.host] = 1;
  return static_cast<int>(seen.size());
}

std::vector<std::string> split_rsh(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

std::string shell_quote(const std::string& text) {
  std::string q = "'";
  for (char c : text) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

bool is_secret_env(const std::string& name) { return name == "GSHMEM_UNIQUEID" || name == "GSHMEM_BOOTSTRAP_SECRET"; }

std::string remote_command(const RemoteSpec& spec) {
  const long polls = static_cast<long>(spec.kill_grace_s * 10 + 0.999);  // 0.1 s each
  const std::string token = shell_quote("GSHMRUN_PE=" + spec.token);
  // The PE is this shell after `exec`, so $$ is its pid (and, under ssh or gshmrun, the id of
  // its process group). fd 3 keeps the launcher's stdin for the watcher; the PE reads /dev/null.
  std::string s;
  if (!spec.cwd.empty()) s += "cd " + shell_quote(spec.cwd) + " 2>/dev/null; ";
  // The secrets end at an empty line; EOF before it means the remote shell did not pass stdin on.
  s += "ok=; while IFS= read -r l; do [ -n \"$l\" ] || { ok=1; break; }; export \"$l\"; done; ";
  s += "[ -n \"$ok\" ] || { echo \"gshmrun: the remote shell passed on no job data (stdin ended): use one "
       "that passes its stdin to the command (ssh does, ssh -n does not)\" >&2; exit 1; }; ";
  s += "exec 3<&0 </dev/null; pe=$$; ";
  // The watcher is double-forked, so that it is no child of the PE (a PE that waits for any
  // child must not reap it); after SIGTERM it polls for the PE's end for up to the grace.
  // own: $pe is still this PE (its environment holds the exact token line), not a reused pid.
  s += "( ( trap '' HUP INT TERM; own() { tr '\\0' '\\n' </proc/$pe/environ | grep -qxF " + token + "; }; ";
  s += "cat <&3; if own; then kill -TERM -$pe || kill -TERM $pe; i=0; ";
  s += "while [ $i -lt " + std::to_string(polls) + " ] && own; do sleep 0.1; i=$((i+1)); done; ";
  s += "if own; then kill -KILL -$pe || kill -KILL $pe; fi; ";
  s += "fi ) >/dev/null 2>&1 & ) ; ";
  s += "exec 3<&- env " + token;
  for (const auto& kv : spec.env) s += " " + shell_quote(kv.first + "=" + kv.second);
  for (const std::string& a : spec.command) s += " " + shell_quote(a);
  // Whatever the remote login shell is (sh, bash, zsh, csh, fish), it only parses this.
  return "exec sh -c " + shell_quote(s);
}

bool secret_lines(const std::vector<std::pair<std::string, std::string>>& secrets, std::string* out, std::string* err) {
  out->clear();
  for (const auto& kv : secrets) {
    if (kv.second.find_first_of(std::string("\n\0", 2)) != std::string::npos) {
      *err = kv.first + " holds a newline, which cannot be passed to a remote PE";
      return false;
    }
    *out += kv.first + "=" + kv.second + "\n";
  }
  *out += "\n";
  return true;
}

}  // namespace gshmrun
