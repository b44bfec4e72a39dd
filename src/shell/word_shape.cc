// The expansions bash finds in a word's unquoted literal text after it is read: tilde prefixes,
// brace expansion, and glob patterns. Which apply depends on where the word is used (WordUse).
// They are marked as parts so later stages can tell a literal `{a,b}` or `*` from an expansion.
#include <cstring>

#include "shell/parser_impl.h"

namespace safesh::shell::internal {

namespace {

// One unquoted literal character, or one whole non-literal part, of a word.
struct Item {
  bool is_char = false;
  char c = 0;
  uint32_t begin = 0;
  uint32_t end = 0;
  Part part;  // when !is_char
};

std::vector<Item> Flatten(std::vector<Part>&& parts) {
  std::vector<Item> items;
  for (Part& p : parts) {
    if (p.kind == PartKind::kLit) {
      // A literal part covers a contiguous run of the source, one byte per character.
      for (size_t i = 0; i < p.text.size(); ++i) {
        Item it;
        it.is_char = true;
        it.c = p.text[i];
        it.begin = p.begin + static_cast<uint32_t>(i);
        it.end = it.begin + 1;
        items.push_back(std::move(it));
      }
      if (!p.text.empty()) items.back().end = p.end;
    } else {
      Item it;
      it.begin = p.begin;
      it.end = p.end;
      it.part = std::move(p);
      items.push_back(std::move(it));
    }
  }
  return items;
}

void EmitChar(std::vector<Part>& out, const Item& it) {
  if (!out.empty() && out.back().kind == PartKind::kLit && out.back().end == it.begin) {
    out.back().text += it.c;
    out.back().end = it.end;
    return;
  }
  Part p;
  p.kind = PartKind::kLit;
  p.begin = it.begin;
  p.end = it.end;
  p.text.assign(1, it.c);
  out.push_back(std::move(p));
}

bool IsChar(const std::vector<Item>& items, size_t i, char c) {
  return i < items.size() && items[i].is_char && items[i].c == c;
}

// bash's brace sequence: {x..y} or {x..y..incr} with x and y both integers or both single
// characters, and incr an integer.
bool IsSequence(const std::string& s) {
  auto is_int = [](std::string_view v) {
    size_t i = 0;
    if (i < v.size() && (v[i] == '-' || v[i] == '+')) ++i;
    if (i >= v.size()) return false;
    for (; i < v.size(); ++i) {
      if (v[i] < '0' || v[i] > '9') return false;
    }
    return true;
  };
  size_t dots = s.find("..");
  if (dots == std::string::npos) return false;
  std::string_view a = std::string_view(s).substr(0, dots);
  std::string_view rest = std::string_view(s).substr(dots + 2);
  std::string_view b = rest;
  std::string_view incr;
  size_t dots2 = rest.find("..");
  if (dots2 != std::string_view::npos) {
    b = rest.substr(0, dots2);
    incr = rest.substr(dots2 + 2);
    if (!is_int(incr)) return false;
  }
  if (is_int(a) && is_int(b)) return true;
  return a.size() == 1 && b.size() == 1 && a[0] != '\\' && b[0] != '\\';
}

// Finds brace expansions in items[begin, end) and appends the resulting parts to `out`.
void Braces(std::vector<Item>& items, size_t begin, size_t end, std::vector<Part>& out);

// items[open] is an unquoted `{`: returns the matching `}` and the top-level commas, or
// SIZE_MAX when there is none.
size_t MatchBrace(const std::vector<Item>& items, size_t open, size_t end,
                  std::vector<size_t>* commas) {
  int depth = 0;
  for (size_t i = open; i < end; ++i) {
    if (!items[i].is_char) continue;
    char c = items[i].c;
    if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0) return i;
    } else if (c == ',' && depth == 1) {
      commas->push_back(i);
    }
  }
  return SIZE_MAX;
}

void Braces(std::vector<Item>& items, size_t begin, size_t end, std::vector<Part>& out) {
  size_t i = begin;
  while (i < end) {
    if (IsChar(items, i, '{')) {
      std::vector<size_t> commas;
      size_t close = MatchBrace(items, i, end, &commas);
      if (close != SIZE_MAX && !commas.empty()) {
        Part p;
        p.kind = PartKind::kBrace;
        p.begin = items[i].begin;
        p.end = items[close].end;
        size_t from = i + 1;
        commas.push_back(close);
        for (size_t cpos : commas) {
          Word alt;
          alt.begin = from < cpos ? items[from].begin : items[cpos].begin;
          alt.end = items[cpos].begin;
          Braces(items, from, cpos, alt.parts);
          p.words.push_back(std::move(alt));
          from = cpos + 1;
        }
        out.push_back(std::move(p));
        i = close + 1;
        continue;
      }
      if (close != SIZE_MAX) {
        std::string inner;
        bool plain = true;
        for (size_t k = i + 1; k < close; ++k) {
          if (!items[k].is_char) {
            plain = false;
            break;
          }
          inner += items[k].c;
        }
        if (plain && IsSequence(inner)) {
          Part p;
          p.kind = PartKind::kBraceRange;
          p.begin = items[i].begin;
          p.end = items[close].end;
          p.text = inner;
          out.push_back(std::move(p));
          i = close + 1;
          continue;
        }
      }
    }
    if (items[i].is_char) {
      EmitChar(out, items[i]);
    } else {
      out.push_back(std::move(items[i].part));
    }
    ++i;
  }
}

// Splits unquoted glob characters out of literal parts: * ? and a [ that a later ] closes.
void MarkGlobs(std::vector<Part>& parts) {
  bool has_close = false;
  for (const Part& p : parts) {
    if (p.kind == PartKind::kLit && p.text.find(']') != std::string::npos) has_close = true;
  }
  std::vector<Part> out;
  for (size_t pi = 0; pi < parts.size(); ++pi) {
    Part& p = parts[pi];
    if (p.kind == PartKind::kBrace) {
      for (Word& w : p.words)
        MarkGlobs(w.parts);
      out.push_back(std::move(p));
      continue;
    }
    if (p.kind != PartKind::kLit || p.text.find_first_of("*?[") == std::string::npos) {
      out.push_back(std::move(p));
      continue;
    }
    // Is there a `]` after each `[` (in this part or a later literal)?
    bool later_close = false;
    for (size_t k = pi + 1; k < parts.size(); ++k) {
      if (parts[k].kind == PartKind::kLit && parts[k].text.find(']') != std::string::npos) {
        later_close = true;
      }
    }
    (void)has_close;
    std::string buf;
    uint32_t buf_begin = p.begin;
    auto flush = [&](uint32_t at) {
      if (!buf.empty()) {
        Part l;
        l.kind = PartKind::kLit;
        l.begin = buf_begin;
        l.end = at;
        l.text = std::move(buf);
        out.push_back(std::move(l));
        buf.clear();
      }
    };
    for (size_t i = 0; i < p.text.size(); ++i) {
      char c = p.text[i];
      uint32_t at = p.begin + static_cast<uint32_t>(i);
      bool glob = c == '*' || c == '?';
      if (c == '[') {
        glob = p.text.find(']', i + 1) != std::string::npos || later_close;
      }
      if (glob) {
        flush(at);
        Part g;
        g.kind = PartKind::kGlob;
        g.begin = at;
        g.end = at + 1;
        g.text.assign(1, c);
        out.push_back(std::move(g));
        buf_begin = at + 1;
      } else {
        if (buf.empty()) buf_begin = at;
        buf += c;
      }
    }
    flush(p.end);
  }
  parts = std::move(out);
}

// A tilde prefix at the start of `parts[index]` (a literal part): ~ or ~user up to `/` (or `:` in
// an assignment) or the end of the word, all unquoted. Splits it into a kTilde part.
void MarkTildeAt(std::vector<Part>& parts, size_t index, size_t offset, bool in_assignment) {
  Part& p = parts[index];
  if (p.kind != PartKind::kLit || offset >= p.text.size() || p.text[offset] != '~') return;
  size_t stop = offset + 1;
  while (stop < p.text.size() && p.text[stop] != '/' && !(in_assignment && p.text[stop] == ':')) {
    ++stop;
  }
  bool ends_here = stop < p.text.size() || index + 1 == parts.size();
  if (!ends_here) return;  // the prefix runs into quoted text or an expansion: not a tilde
  Part t;
  t.kind = PartKind::kTilde;
  t.begin = p.begin + static_cast<uint32_t>(offset);
  t.end = p.begin + static_cast<uint32_t>(stop);
  t.text = p.text.substr(offset + 1, stop - offset - 1);
  Part before;
  before.kind = PartKind::kLit;
  before.begin = p.begin;
  before.end = t.begin;
  before.text = p.text.substr(0, offset);
  Part after;
  after.kind = PartKind::kLit;
  after.begin = t.end;
  after.end = p.end;
  after.text = p.text.substr(stop);
  std::vector<Part> repl;
  if (!before.text.empty()) repl.push_back(std::move(before));
  repl.push_back(std::move(t));
  if (!after.text.empty()) repl.push_back(std::move(after));
  parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(index));
  parts.insert(parts.begin() + static_cast<std::ptrdiff_t>(index),
               std::make_move_iterator(repl.begin()), std::make_move_iterator(repl.end()));
}

// Tildes of an assignment value: at its start and after each unquoted `:`.
void MarkAssignmentTildes(std::vector<Part>& parts, size_t first, size_t offset) {
  MarkTildeAt(parts, first, offset, true);
  for (size_t i = first; i < parts.size(); ++i) {
    if (parts[i].kind != PartKind::kLit) continue;
    for (size_t k = (i == first ? offset : 0); k < parts[i].text.size(); ++k) {
      if (parts[i].text[k] == ':' && k + 1 < parts[i].text.size() && parts[i].text[k + 1] == '~') {
        MarkTildeAt(parts, i, k + 1, true);
        break;  // the part was split; later colons are in the parts after it
      }
    }
  }
}

}  // namespace

void ParserImpl::FinishWord(Word& w, WordUse use) {
  if (use == WordUse::kQuoted) return;
  std::vector<Part>& parts = w.parts;
  if (parts.empty()) return;

  // Tilde: at the start; in assignments (and words that look like one) also after = and :.
  if (parts[0].kind == PartKind::kLit) {
    if (use == WordUse::kAssignValue) {
      MarkAssignmentTildes(parts, 0, 0);
    } else {
      const std::string& t = parts[0].text;
      size_t eq = t.find('=');
      if (use == WordUse::kArgument && eq != std::string::npos && eq > 0 &&
          IsAssignmentLhs(std::string_view(t).substr(0, eq), false)) {
        MarkAssignmentTildes(parts, 0, eq + 1);
      } else {
        MarkTildeAt(parts, 0, 0, false);
      }
    }
  }

  if (use == WordUse::kArgument) {
    bool maybe = false;
    for (const Part& p : parts) {
      if (p.kind == PartKind::kLit && p.text.find('{') != std::string::npos) maybe = true;
    }
    if (maybe) {
      std::vector<Item> items = Flatten(std::move(parts));
      std::vector<Part> out;
      Braces(items, 0, items.size(), out);
      parts = std::move(out);
    }
  }
  if (use == WordUse::kArgument || use == WordUse::kPattern) MarkGlobs(parts);
}

// NAME[SUB]+=VALUE split into its pieces. The lexer only makes assignment tokens whose leading
// literal text is a valid name.
Assignment ParserImpl::SplitAssignment(Word&& w) {
  Assignment a;
  a.begin = w.begin;
  a.end = w.end;
  std::vector<Part>& parts = w.parts;
  size_t i = 0;
  size_t off = 0;  // offset inside parts[i]
  // The name.
  while (i < parts.size() && parts[i].kind == PartKind::kLit) {
    const std::string& t = parts[i].text;
    while (off < t.size() && IsNameChar(static_cast<unsigned char>(t[off]))) {
      a.name += t[off++];
    }
    if (off < t.size()) break;
    ++i;
    off = 0;
  }
  if (i < parts.size() && off == 0 && parts[i].kind == PartKind::kSubscript) {
    Word idx;
    idx.begin = parts[i].begin;
    idx.end = parts[i].end;
    idx.parts = std::move(parts[i].parts);
    a.index = std::move(idx);
    ++i;
  }
  // `=` or `+=`.
  if (i < parts.size() && parts[i].kind == PartKind::kLit) {
    const std::string& t = parts[i].text;
    if (off < t.size() && t[off] == '+') {
      a.append = true;
      ++off;
    }
    if (off < t.size() && t[off] == '=') ++off;
    // The rest of this literal starts the value.
    Word value;
    if (off < t.size()) {
      Part rest;
      rest.kind = PartKind::kLit;
      rest.begin = parts[i].begin + static_cast<uint32_t>(off);
      rest.end = parts[i].end;
      rest.text = t.substr(off);
      value.parts.push_back(std::move(rest));
    }
    value.begin = parts[i].begin + static_cast<uint32_t>(off);
    for (size_t k = i + 1; k < parts.size(); ++k)
      value.parts.push_back(std::move(parts[k]));
    value.end = w.end;
    FinishWord(value, WordUse::kAssignValue);
    a.value = std::move(value);
  }
  return a;
}

}  // namespace safesh::shell::internal
