// Call inlining (docs/translator.md, "Device functions"): a call site becomes a renamed copy of the
// callee's body, so the rest of the translator sees one flat function per kernel and reconvergence
// after a call is an ordinary post-dominator.
#include "ptx/inline.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

namespace tsm::ptx {

bool is_builtin_call(const std::string& callee) { return callee == "vprintf" || callee == "__assertfail"; }

namespace {

using Renames = std::unordered_map<std::string, std::string>;

void rename(Operand& op, const Renames& names) {
  switch (op.kind) {
    case Operand::Kind::Reg:
    case Operand::Kind::Symbol:
    case Operand::Kind::Address: {
      if (op.name.empty()) break;
      auto it = names.find(op.name);
      if (it != names.end()) {
        op.name = it->second;
      } else if (const size_t dot = op.name.find('.'); dot != std::string::npos) {  // %v.x: a vector component
        auto base = names.find(op.name.substr(0, dot));
        if (base != names.end()) op.name = base->second + op.name.substr(dot);
      }
      break;
    }
    default: break;
  }
  for (Operand& e : op.elems) rename(e, names);
}

Instruction renamed(const Instruction& in, const Renames& names) {
  Instruction out = in;
  if (!out.guard.empty()) {
    auto it = names.find(out.guard);
    if (it != names.end()) out.guard = it->second;
  }
  for (Operand& op : out.operands) rename(op, names);
  return out;
}

Statement label_statement(const std::string& label, Loc loc) {
  Statement s;
  s.kind = Statement::Kind::Label;
  s.label = label;
  s.loc = loc;
  return s;
}

Statement instr_statement(Instruction in) {
  Statement s;
  s.kind = Statement::Kind::Instr;
  s.loc = in.loc;
  s.instr = std::move(in);
  return s;
}

Operand reg_operand(const std::string& name, Loc loc) {
  Operand o;
  o.kind = Operand::Kind::Reg;
  o.name = name;
  o.loc = loc;
  return o;
}

// `mov.TYPE dst, src` between a `.reg` parameter and the caller's value.
Instruction mov(const VarDecl& d, const std::string& dst, Operand src, Loc loc) {
  Instruction in;
  in.loc = loc;
  in.opcode = "mov";
  in.mods = {d.type.str()};
  in.operands = {reg_operand(dst, loc), std::move(src)};
  return in;
}

class Inliner {
 public:
  Inliner(const Module& mod) : mod_(mod) {
    for (const Function& f : mod.functions) functions_[f.name] = &f;
  }

  Function run(const Function& entry) {
    Function out = entry;
    out.body.clear();
    stack_.push_back(entry.name);
    emit(entry, Renames{}, "", out);
    return out;
  }

 private:
  [[noreturn]] void fail(Loc loc, const std::string& what) const { throw PtxError(mod_.file, loc, what); }

  // Append `fn`'s body to `out` with `names` applied; `ret_label` is where `ret` goes (empty in the
  // kernel itself, where ret ends the thread).
  void emit(const Function& fn, const Renames& names, const std::string& ret_label, Function& out) {
    for (const Statement& st : fn.body) {
      if (st.kind == Statement::Kind::Label) {
        auto it = names.find(st.label);
        out.body.push_back(label_statement(it == names.end() ? st.label : it->second, st.loc));
        continue;
      }
      Instruction in = renamed(st.instr, names);
      if (in.opcode == "ret" && !ret_label.empty()) {
        in.opcode = "bra";
        in.mods.clear();
        in.operands = {reg_operand(ret_label, in.loc)};
        in.operands[0].kind = Operand::Kind::Symbol;
        out.body.push_back(instr_statement(std::move(in)));
        continue;
      }
      if (in.opcode != "call") {
        out.body.push_back(instr_statement(std::move(in)));
        continue;
      }
      inline_call(in, out);
    }
  }

  void inline_call(const Instruction& call, Function& out) {
    const Operand& target = call.operands.at(1);
    if (target.kind != Operand::Kind::Symbol && target.kind != Operand::Kind::Reg)
      fail(call.loc, "malformed call");
    auto found = functions_.find(target.name);
    if (found == functions_.end()) fail(call.loc, fmt::format("indirect calls are not supported (call through '{}')", target.name));
    const Function& callee = *found->second;
    if (is_builtin_call(callee.name)) {
      if (!call.guard.empty()) {  // the lowering's sequences are unguarded: branch around them
        const std::string skip = fmt::format("$skip$c{}", next_site_++);
        out.body.push_back(instr_statement(skip_branch(call, skip)));
        Instruction c = call;
        c.guard.clear();
        out.body.push_back(instr_statement(std::move(c)));
        out.body.push_back(label_statement(skip, call.loc));
      } else {
        out.body.push_back(instr_statement(call));
      }
      return;
    }
    if (callee.is_entry) fail(call.loc, fmt::format("'{}' is a kernel (.entry) and cannot be called", callee.name));
    if (callee.is_extern)
      fail(call.loc, fmt::format("call of '{}', which is declared but not defined in this module (separate compilation "
                                 "and external libraries are not supported)", callee.name));
    if (std::find(stack_.begin(), stack_.end(), callee.name) != stack_.end())
      fail(call.loc, fmt::format("recursive call of '{}' (device functions are inlined; recursion is not supported)", callee.name));
    const std::vector<Operand> no_operands;
    const std::vector<Operand>& rets = call.operands.at(0).kind == Operand::Kind::Vector ? call.operands.at(0).elems : no_operands;
    const std::vector<Operand>& args = call.operands.size() > 2 && call.operands.at(2).kind == Operand::Kind::Vector
                                           ? call.operands.at(2).elems
                                           : no_operands;
    if (args.size() != callee.params.size())
      fail(call.loc, fmt::format("call of '{}' passes {} arguments, the function takes {}", callee.name, args.size(), callee.params.size()));
    if (rets.size() != callee.returns.size())
      fail(call.loc, fmt::format("call of '{}' expects {} return values, the function returns {}", callee.name, rets.size(), callee.returns.size()));

    const int site = next_site_++;
    const std::string suffix = fmt::format("$c{}", site);
    const std::string ret_label = "$ret" + suffix;
    Renames names;
    for (const Statement& st : callee.body)
      if (st.kind == Statement::Kind::Label) names[st.label] = st.label + suffix;
    for (const VarDecl& d : callee.decls) {
      VarDecl copy = d;
      if (d.space == Space::Shared) {  // one variable per block, whichever call site uses it
        copy.name = callee.name + "$" + d.name;
        names[d.name] = copy.name;
        if (shared_added_.insert(copy.name).second) out.decls.push_back(copy);
        continue;
      }
      if (d.range) {
        copy.name = d.name + suffix + "_";
        for (unsigned i = 0; i < d.range; ++i) names[d.name + std::to_string(i)] = copy.name + std::to_string(i);
      } else {
        copy.name = d.name + suffix;
        names[d.name] = copy.name;
      }
      out.decls.push_back(std::move(copy));
    }
    // Parameters: `.param` ones are the caller's argument variables themselves; `.reg` ones are
    // registers of this copy, set from the arguments before the body.
    std::vector<Instruction> prologue, epilogue;
    auto bind = [&](const VarDecl& formal, const Operand& actual, bool is_return) {
      if (formal.space == Space::Param) {
        if (actual.kind != Operand::Kind::Reg && actual.kind != Operand::Kind::Symbol)
          fail(call.loc, fmt::format("call of '{}': '.param' {} '{}' needs a '.param' variable", callee.name,
                                     is_return ? "return value" : "parameter", formal.name));
        names[formal.name] = actual.name;
        return;
      }
      VarDecl r = formal;
      r.name = formal.name + suffix;
      names[formal.name] = r.name;
      out.decls.push_back(r);
      if (is_return) epilogue.push_back(mov(formal, actual.name, reg_operand(r.name, call.loc), call.loc));
      else prologue.push_back(mov(formal, r.name, actual, call.loc));
    };
    for (size_t i = 0; i < args.size(); ++i) bind(callee.params[i], args[i], false);
    for (size_t i = 0; i < rets.size(); ++i) bind(callee.returns[i], rets[i], true);

    if (!call.guard.empty()) out.body.push_back(instr_statement(skip_branch(call, ret_label)));
    for (Instruction& in : prologue) out.body.push_back(instr_statement(std::move(in)));
    stack_.push_back(callee.name);
    emit(callee, names, ret_label, out);
    stack_.pop_back();
    out.body.push_back(label_statement(ret_label, call.loc));
    for (Instruction& in : epilogue) out.body.push_back(instr_statement(std::move(in)));
  }

  // `@!g bra label` for a call guarded by @g (and the reverse for @!g).
  static Instruction skip_branch(const Instruction& call, const std::string& label) {
    Instruction b;
    b.loc = call.loc;
    b.guard = call.guard;
    b.guard_neg = !call.guard_neg;
    b.opcode = "bra";
    b.operands = {reg_operand(label, call.loc)};
    b.operands[0].kind = Operand::Kind::Symbol;
    return b;
  }

  const Module& mod_;
  std::map<std::string, const Function*> functions_;
  std::vector<std::string> stack_;
  std::set<std::string> shared_added_;
  int next_site_ = 0;
};

}  // namespace

Function inline_calls(const Module& mod, const Function& entry) { return Inliner(mod).run(entry); }

}  // namespace tsm::ptx
