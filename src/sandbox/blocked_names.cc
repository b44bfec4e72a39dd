#include "sandbox/blocked_names.h"

#include <fnmatch.h>

namespace safesh::sandbox {
namespace {

bool HasGlobChar(std::string_view s) {
  return s.find_first_of("*?[\\") != std::string_view::npos;
}

char Lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string LowerCopy(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = Lower(c);
  return out;
}

// Checks the pattern syntax fnmatch(3) and glob(3) would otherwise accept silently: a `[` that
// is never closed is taken as a literal `[`, which is almost always a mistake in a rule meant
// to hide something; a trailing `\` escapes nothing.
bool CheckBrackets(std::string_view p, std::string* why) {
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\') {
      if (i + 1 == p.size()) {
        *why = "ends with a `\\' that escapes nothing";
        return false;
      }
      ++i;
      continue;
    }
    if (p[i] != '[') continue;
    size_t j = i + 1;
    if (j < p.size() && (p[j] == '!' || p[j] == '^')) ++j;
    if (j < p.size() && p[j] == ']') ++j;  // a `]` first is part of the set
    for (; j < p.size() && p[j] != ']'; ++j) {
      if (p[j] == '[' && j + 1 < p.size() && p[j + 1] == ':') {
        size_t end = p.find(":]", j + 2);
        if (end == std::string_view::npos) break;
        j = end + 1;
      }
    }
    if (j >= p.size()) {
      *why = "has a `[' that is not closed (write `\\[' for a literal one)";
      return false;
    }
    i = j;
  }
  return true;
}

}  // namespace

const std::vector<std::string>& DefaultBlockedNames() {
  static const std::vector<std::string> names = {
      // Environment files with credentials, but not the templates committed beside them.
      ".env", ".env.*", "!.env.example", "!.env.sample", "!.env.template", "!.env.dist", ".envrc",
      // Private keys and key stores.
      "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.ppk", "*.kdbx", "id_rsa",
      "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
      // Credential files of package managers and tools, wherever a project keeps a copy.
      ".npmrc", ".pypirc", ".netrc", ".git-credentials", ".pgpass", ".htpasswd", ".my.cnf",
      ".vault-token", ".s3cfg", ".boto", ".dockercfg", "kaggle.json",
      // Cloud credentials and infrastructure state, which holds every secret it created.
      "credentials.json", "*.tfstate", "*.tfstate.backup"};
  return names;
}

BlockedEntryKind ClassifyBlockedEntry(std::string_view entry) {
  if (entry.find('/') == std::string_view::npos && !entry.starts_with('~'))
    return BlockedEntryKind::kName;
  return entry.find_first_of("*?[") != std::string_view::npos ? BlockedEntryKind::kGlob
                                                              : BlockedEntryKind::kPath;
}

bool CheckBlockedEntry(std::string_view entry, std::string* why) {
  if (entry.empty()) {
    *why = "has an empty entry";
    return false;
  }
  if (entry.find('\0') != std::string_view::npos) {
    *why = "has an entry with a NUL byte";
    return false;
  }
  std::string quoted = "`" + std::string(entry) + "'";
  BlockedEntryKind kind = ClassifyBlockedEntry(entry);
  if (kind == BlockedEntryKind::kPath) return true;
  std::string bad;
  if (!CheckBrackets(entry, &bad)) {
    *why = "entry " + quoted + " " + bad;
    return false;
  }
  if (kind == BlockedEntryKind::kGlob) return true;
  if (entry.starts_with('!')) {
    *why = "entry " + quoted +
           " starts with `!': exceptions to the built-in names cannot be made in settings "
           "(write `\\!' for a name that starts with `!')";
    return false;
  }
  if (entry == "." || entry == "..") {
    *why = "entry " + quoted + " is not a file name";
    return false;
  }
  if (entry.find_first_not_of("*?") == std::string_view::npos) {
    *why = "entry " + quoted + " matches every name: it would hide every file in the workspace";
    return false;
  }
  return true;
}

NameMatcher::NameMatcher(const std::vector<std::string>& patterns) {
  for (const std::string& p : patterns) {
    Pattern c;
    c.exception = p.starts_with('!');
    std::string text = LowerCopy(c.exception ? std::string_view(p).substr(1) : p);
    std::string_view body = text;
    if (!HasGlobChar(body)) {
      c.kind = Pattern::kExact;
    } else if (body.size() > 1 && body[0] == '*' && !HasGlobChar(body.substr(1))) {
      c.kind = Pattern::kSuffix;
      text.erase(0, 1);
    } else if (body.size() > 1 && body.back() == '*' &&
               !HasGlobChar(body.substr(0, body.size() - 1))) {
      c.kind = Pattern::kPrefix;
      text.pop_back();
    } else {
      c.kind = Pattern::kGlob;
    }
    c.text = std::move(text);
    patterns_.push_back(std::move(c));
  }
}

bool NameMatcher::Matches(std::string_view name) const {
  // Names are at most NAME_MAX (255) bytes; a longer one (not from a directory) is copied.
  char buf[256];
  std::string long_name;
  char* lower = buf;
  if (name.size() >= sizeof buf) {
    long_name.resize(name.size());
    lower = long_name.data();
  }
  for (size_t i = 0; i < name.size(); ++i)
    lower[i] = Lower(name[i]);
  if (lower == buf) buf[name.size()] = '\0';  // for fnmatch
  std::string_view n(lower, name.size());
  for (auto it = patterns_.rbegin(); it != patterns_.rend(); ++it) {
    bool hit = false;
    switch (it->kind) {
      case Pattern::kExact:
        hit = n == it->text;
        break;
      case Pattern::kSuffix:
        hit = n.ends_with(it->text);
        break;
      case Pattern::kPrefix:
        hit = n.starts_with(it->text);
        break;
      case Pattern::kGlob:
        hit = fnmatch(it->text.c_str(), lower, 0) == 0;
        break;
    }
    if (hit) return !it->exception;
  }
  return false;
}

}  // namespace safesh::sandbox
