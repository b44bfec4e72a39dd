#include "pipeline/mask_secrets.h"

#include "exec/redact.h"

namespace safesh::pipeline {
namespace {

void Mask(const exec::Redactor& redactor, std::string* s) {
  std::string out;
  redactor.Scan(s->data(), s->size(), /*at_end=*/true,
                [&out](const char* p, size_t n) { out.append(p, n); });
  *s = std::move(out);
}

void MaskVerdict(const exec::Redactor& redactor, policy::Verdict* v) {
  Mask(redactor, &v->reason);
  if (v->parse_error) Mask(redactor, &*v->parse_error);
  for (policy::JudgedCommand& c : v->commands) {
    for (policy::Arg& a : c.use.argv) {
      Mask(redactor, &a.text);
      Mask(redactor, &a.why);
    }
    Mask(redactor, &c.matched);
  }
  for (policy::Write& w : v->writes)
    Mask(redactor, &w.target);
  for (std::vector<policy::Finding>* list : {&v->unverified, &v->network, &v->runtime}) {
    for (policy::Finding& f : *list) {
      Mask(redactor, &f.subject);
      Mask(redactor, &f.reason);
    }
  }
}

}  // namespace

void MaskSecrets(policy::Verdict* verdict, const std::vector<exec::Secret>& secrets) {
  exec::Redactor redactor(secrets);
  if (redactor.active()) MaskVerdict(redactor, verdict);
}

void MaskSecrets(std::string* text, const std::vector<exec::Secret>& secrets) {
  exec::Redactor redactor(secrets);
  if (redactor.active()) Mask(redactor, text);
}

void MaskSecrets(RunResult* r, const std::vector<exec::Secret>& secrets) {
  exec::Redactor redactor(secrets);
  if (!redactor.active()) return;
  for (std::string* s : {&r->error, &r->advice, &r->sandbox_reason, &r->spool_path})
    Mask(redactor, s);
  for (std::string& a : r->plan)
    Mask(redactor, &a);
  if (r->verdict) MaskVerdict(redactor, &*r->verdict);
}

}  // namespace safesh::pipeline
