// The expansions bash finds in a word's unquoted literal text after it is read: tilde prefixes,
// brace expansion, and glob patterns. Which apply depends on where the word is used (WordUse).
// They are marked as parts so later stages can tell a literal `{a,b}` or `*` from an expansion.
#include <cstring>
#include <string>
#include <vector>

#include "shell/parser_impl.h"

namespace safesh::shell::internal {

namespace {

// One unquoted literal character (a view of it), or one whole non-literal part, of a word.
struct Item {
  bool is_char = false;
  const char* ch = nullptr;
  uint32_t begin = 0;
  uint32_t end = 0;
  Part part;  // when !is_char
};

std::vector<Item> Flatten(const ArenaVec<Part>& parts) {
  std::vector<Item> items;
  for (const Part& p : parts) {
    if (p.kind == PartKind::kLit) {
      // A literal part covers a contiguous run of the source, one byte per character.
      for (size_t i = 0; i < p.text.size(); ++i) {
        Item it;
        it.is_char = true;
        it.ch = p.text.data() + i;
        it.begin = p.begin + static_cast<uint32_t>(i);
        it.end = it.begin + 1;
        items.push_back(it);
      }
      if (!p.text.empty()) items.back().end = p.end;
    } else {
      Item it;
      it.begin = p.begin;
      it.end = p.end;
      it.part = p;
      items.push_back(it);
    }
  }
  return items;
}

// Appends literal text [ch, ch+n) at [begin, end) to `out`, joining the last literal part when
// the two are adjacent.
void EmitText(Arena& arena, ArenaVec<Part>& out, const char* ch, size_t n, uint32_t begin,
              uint32_t end) {
  if (n == 0) return;
  if (!out.empty()) {
    Part& last = out.back();
    if (last.kind == PartKind::kLit && last.end == begin &&
        last.text.data() + last.text.size() == ch) {
      last.text = std::string_view(last.text.data(), last.text.size() + n);
      last.end = end;
      return;
    }
  }
  Part p;
  p.kind = PartKind::kLit;
  p.begin = begin;
  p.end = end;
  p.text = std::string_view(ch, n);
  out.push_back(arena, p);
}

bool IsChar(const std::vector<Item>& items, size_t i, char c) {
  return i < items.size() && items[i].is_char && *items[i].ch == c;
}

// bash's brace sequence: {x..y} or {x..y..incr} with x and y both integers or both single
// characters, and incr an integer.
bool IsSequence(std::string_view s) {
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
  if (dots == std::string_view::npos) return false;
  std::string_view a = s.substr(0, dots);
  std::string_view rest = s.substr(dots + 2);
  std::string_view b = rest;
  size_t dots2 = rest.find("..");
  if (dots2 != std::string_view::npos) {
    b = rest.substr(0, dots2);
    if (!is_int(rest.substr(dots2 + 2))) return false;
  }
  if (is_int(a) && is_int(b)) return true;
  return a.size() == 1 && b.size() == 1 && a[0] != '\\' && b[0] != '\\';
}

// items[open] is an unquoted `{`: returns the matching `}` and the top-level commas, or
// SIZE_MAX when there is none.
size_t MatchBrace(const std::vector<Item>& items, size_t open, size_t end,
                  std::vector<size_t>* commas) {
  int depth = 0;
  for (size_t i = open; i < end; ++i) {
    if (!items[i].is_char) continue;
    char c = *items[i].ch;
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

// Finds brace expansions in items[begin, end) and appends the resulting parts to `out`.
void Braces(Arena& arena, const std::vector<Item>& items, size_t begin, size_t end,
            ArenaVec<Part>& out) {
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
          Braces(arena, items, from, cpos, alt.parts);
          p.words.push_back(arena, alt);
          from = cpos + 1;
        }
        out.push_back(arena, p);
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
          inner += *items[k].ch;
        }
        if (plain && IsSequence(inner)) {
          Part p;
          p.kind = PartKind::kBraceRange;
          p.begin = items[i].begin;
          p.end = items[close].end;
          p.text = std::string_view(items[i + 1].ch, inner.size());
          if (items[close].ch != items[i + 1].ch + inner.size()) p.text = arena.Copy(inner);
          out.push_back(arena, p);
          i = close + 1;
          continue;
        }
      }
    }
    if (items[i].is_char) {
      EmitText(arena, out, items[i].ch, 1, items[i].begin, items[i].end);
    } else {
      out.push_back(arena, items[i].part);
    }
    ++i;
  }
}

// Splits unquoted glob characters out of literal parts: * ? and a [ that a later ] closes.
void MarkGlobs(Arena& arena, ArenaVec<Part>& parts) {
  bool any = false;
  for (const Part& p : parts) {
    if (p.kind == PartKind::kBrace ||
        (p.kind == PartKind::kLit && p.text.find_first_of("*?[") != std::string_view::npos)) {
      any = true;
    }
  }
  if (!any) return;
  ArenaVec<Part> out;
  for (size_t pi = 0; pi < parts.size(); ++pi) {
    Part p = parts[pi];
    if (p.kind == PartKind::kBrace) {
      ArenaVec<Word> words;
      for (Word w : p.words) {
        MarkGlobs(arena, w.parts);
        words.push_back(arena, w);
      }
      p.words = words;
      out.push_back(arena, p);
      continue;
    }
    if (p.kind != PartKind::kLit || p.text.find_first_of("*?[") == std::string_view::npos) {
      out.push_back(arena, p);
      continue;
    }
    // Is there a `]` after a `[` (in this part or a later literal)?
    bool later_close = false;
    for (size_t k = pi + 1; k < parts.size(); ++k) {
      if (parts[k].kind == PartKind::kLit && parts[k].text.find(']') != std::string_view::npos) {
        later_close = true;
      }
    }
    size_t run = 0;  // start of the literal run not yet emitted
    for (size_t i = 0; i < p.text.size(); ++i) {
      char c = p.text[i];
      bool glob = c == '*' || c == '?';
      if (c == '[') glob = p.text.find(']', i + 1) != std::string_view::npos || later_close;
      if (!glob) continue;
      uint32_t at = p.begin + static_cast<uint32_t>(i);
      EmitText(arena, out, p.text.data() + run, i - run, p.begin + static_cast<uint32_t>(run), at);
      Part g;
      g.kind = PartKind::kGlob;
      g.begin = at;
      g.end = at + 1;
      g.text = p.text.substr(i, 1);
      out.push_back(arena, g);
      run = i + 1;
    }
    if (run < p.text.size()) {
      EmitText(arena, out, p.text.data() + run, p.text.size() - run,
               p.begin + static_cast<uint32_t>(run), p.end);
    }
  }
  parts = out;
}

// A tilde prefix at `offset` in `parts[index]` (a literal part): ~ or ~user up to `/` (or `:` in
// an assignment) or the end of the word, all unquoted. Splits it into a kTilde part and sets
// *next to the index of the part after it; returns false (and changes nothing) when the text
// there is not a tilde prefix.
bool MarkTildeAt(Arena& arena, ArenaVec<Part>& parts, size_t index, size_t offset,
                 bool in_assignment, size_t* next) {
  Part p = parts[index];
  if (p.kind != PartKind::kLit || offset >= p.text.size() || p.text[offset] != '~') return false;
  size_t stop = offset + 1;
  while (stop < p.text.size() && p.text[stop] != '/' && !(in_assignment && p.text[stop] == ':')) {
    ++stop;
  }
  // A prefix that runs into quoted text or an expansion is not a tilde.
  if (stop == p.text.size() && index + 1 != parts.size()) return false;
  Part repl[3];
  size_t n = 0;
  uint32_t tb = p.begin + static_cast<uint32_t>(offset);
  uint32_t te = p.begin + static_cast<uint32_t>(stop);
  if (offset > 0) {
    Part before = p;
    before.end = tb;
    before.text = p.text.substr(0, offset);
    repl[n++] = before;
  }
  Part t;
  t.kind = PartKind::kTilde;
  t.begin = tb;
  t.end = te;
  t.text = p.text.substr(offset + 1, stop - offset - 1);
  repl[n++] = t;
  *next = index + n;
  if (stop < p.text.size()) {
    Part after = p;
    after.begin = te;
    after.text = p.text.substr(stop);
    repl[n++] = after;
  }
  parts.Splice(arena, index, repl, repl + n);
  return true;
}

// Tildes of an assignment value that starts at `offset` of the first part: at its start and
// after each unquoted `:`.
void MarkAssignmentTildes(Arena& arena, ArenaVec<Part>& parts, size_t offset) {
  bool at_start = true;
  size_t i = 0;
  while (i < parts.size()) {
    if (parts[i].kind != PartKind::kLit) {
      ++i;
      at_start = false;
      continue;
    }
    std::string_view t = parts[i].text;
    size_t next = i + 1;
    for (size_t k = at_start ? offset : 0; k < t.size(); ++k) {
      bool candidate = (at_start && k == offset) || (k > 0 && t[k - 1] == ':');
      if (candidate && t[k] == '~' && MarkTildeAt(arena, parts, i, k, true, &next)) break;
    }
    i = next;
    at_start = false;
  }
}

}  // namespace

void ParserImpl::FinishWord(Word& w, WordUse use) {
  if (use == WordUse::kQuoted) return;
  ArenaVec<Part>& parts = w.parts;
  if (parts.empty()) return;

  // Tilde: at the start; in assignments (and words that look like one) also after = and :.
  if (parts[0].kind == PartKind::kLit) {
    if (use == WordUse::kAssignValue) {
      MarkAssignmentTildes(arena_, parts, 0);
    } else {
      std::string_view t = parts[0].text;
      size_t eq = t.find('=');
      if (use == WordUse::kArgument && eq != std::string_view::npos && eq > 0 &&
          IsAssignmentLhs(t.substr(0, eq), false)) {
        MarkAssignmentTildes(arena_, parts, eq + 1);
      } else {
        size_t next;
        MarkTildeAt(arena_, parts, 0, 0, false, &next);
      }
    }
  }

  if (use == WordUse::kArgument) {
    bool maybe = false;
    for (const Part& p : parts) {
      if (p.kind == PartKind::kLit && p.text.find('{') != std::string_view::npos) maybe = true;
    }
    if (maybe) {
      std::vector<Item> items = Flatten(parts);
      ArenaVec<Part> out;
      Braces(arena_, items, 0, items.size(), out);
      parts = out;
    }
  }
  if (use == WordUse::kArgument || use == WordUse::kPattern) MarkGlobs(arena_, parts);
}

// NAME[SUB]+=VALUE split into its pieces. The lexer only makes assignment tokens whose leading
// literal text is a valid name.
Assignment ParserImpl::SplitAssignment(Word&& w) {
  Assignment a;
  a.begin = w.begin;
  a.end = w.end;
  const ArenaVec<Part>& parts = w.parts;
  size_t i = 0;
  size_t off = 0;  // offset inside parts[i]
  std::string name;
  while (i < parts.size() && parts[i].kind == PartKind::kLit) {
    std::string_view t = parts[i].text;
    while (off < t.size() && IsNameChar(static_cast<unsigned char>(t[off])))
      name += t[off++];
    if (off < t.size()) break;
    ++i;
    off = 0;
  }
  a.name = Intern(name);
  if (i < parts.size() && off == 0 && parts[i].kind == PartKind::kSubscript) {
    Word* idx = arena_.New<Word>();
    const Part& sub = parts[i];
    // The index spans what is inside the brackets; a backslash-newline bash joined right after
    // `[' or before `]' is not part of it.
    idx->begin = sub.parts.empty() ? sub.begin + 1 : sub.parts[0].begin;
    idx->end = sub.parts.empty() ? idx->begin : sub.parts[sub.parts.size() - 1].end;
    idx->parts = sub.parts;
    a.index = idx;
    ++i;
  }
  // `=` or `+=`.
  if (i < parts.size() && parts[i].kind == PartKind::kLit) {
    std::string_view t = parts[i].text;
    if (off < t.size() && t[off] == '+') {
      a.append = true;
      ++off;
    }
    if (off < t.size() && t[off] == '=') ++off;
    // The rest of this literal starts the value.
    Word value;
    if (off < t.size()) {
      Part rest = parts[i];
      rest.begin = parts[i].begin + static_cast<uint32_t>(off);
      rest.text = t.substr(off);
      value.parts.push_back(arena_, rest);
    }
    value.begin = parts[i].begin + static_cast<uint32_t>(off);
    for (size_t k = i + 1; k < parts.size(); ++k)
      value.parts.push_back(arena_, parts[k]);
    value.end = w.end;
    FinishWord(value, WordUse::kAssignValue);
    a.value = value;
  }
  return a;
}

}  // namespace safesh::shell::internal
