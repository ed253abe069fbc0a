// A transaction step (db/database.ts: a generator of `Step`s, typed `Steps<T>`) does nothing until
// its runner drives it: called without `yield*` (or handed on by `return`, or to a runner), it
// compiles and silently changes nothing. This rule reads the call's type (typed linting) and fails
// where a step's generator is made and dropped: a bare call, an `await`, a `void`, or a plain `yield`
// (which hands the runner the generator instead of its queries).
// Written here rather than taken from a library: no published rule knows Ferry's Steps type;
// @typescript-eslint/no-floating-promises is the same idea for promises.

/** Whether a TypeScript type is a generator yielding Ferry's `Step` (what `Steps<T>` is). */
function isStepsGenerator(checker, type) {
  for (const part of type.isUnion() ? type.types : [type]) {
    const name = part.aliasSymbol?.getName() ?? part.getSymbol()?.getName();
    if (name === "Steps") return true;
    if (name !== "Generator") continue;
    const [yielded] = checker.getTypeArguments(part);
    if (yielded && yielded.getProperty("read") && yielded.getProperty("query")) return true;
  }
  return false;
}

/** Where a call's value goes nowhere a runner can drive it. */
function dropped(node) {
  let parent = node.parent;
  // Through type assertions (`step(tx) as never`), which change nothing at run time.
  while (parent && ["TSAsExpression", "TSNonNullExpression", "TSSatisfiesExpression", "TSTypeAssertion"].includes(parent.type)) {
    node = parent;
    parent = parent.parent;
  }
  switch (parent?.type) {
    case "ExpressionStatement":
    case "AwaitExpression":
      return true;
    case "UnaryExpression":
      return parent.operator === "void";
    case "YieldExpression":
      return !parent.delegate && parent.argument === node;
    default:
      return false;
  }
}

function calleeName(node) {
  const callee = node.callee;
  if (callee.type === "Identifier") return callee.name;
  if (callee.type === "MemberExpression" && callee.property.type === "Identifier") return callee.property.name;
  return "this step";
}

/** @type {import("eslint").Rule.RuleModule} */
const rule = {
  meta: {
    type: "problem",
    docs: { description: "A transaction step (a Steps generator) must be driven: `yield* step(tx)` in a body, or returned to a runner." },
    messages: {
      dropped:
        "{{name}}(…) makes a transaction step and drops it, so it never runs: write `yield* {{name}}(…)` inside a transaction body (or return it to database.transaction / readSteps).",
    },
    schema: [],
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    if (!services?.program || !services.esTreeNodeToTSNodeMap) {
      throw new Error("ferry/delegate-steps needs typed linting (parserOptions.projectService).");
    }
    const checker = services.program.getTypeChecker();
    return {
      CallExpression(node) {
        if (!dropped(node)) return;
        const type = checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(node));
        if (isStepsGenerator(checker, type)) context.report({ node, messageId: "dropped", data: { name: calleeName(node) } });
      },
    };
  },
};

const plugin = { meta: { name: "ferry" }, rules: { "delegate-steps": rule } };
export default plugin;
