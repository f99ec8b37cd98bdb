/**
 * An issue is one problem found in some input, with where it is.
 * Every refusal in workboard carries all of its issues at once.
 */
export interface Issue {
  /** Where in the document: a YAML/JSON path such as `steps[2].next[1].to`, or '' for the whole. */
  path: string;
  message: string;
  /** 1-based line and column in the source file, when the parser knows them. */
  line?: number;
  col?: number;
}

export type PathSegment = string | number;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Render a path as people write it: `steps[2].next[1].to`, `inputs["odd key"]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (PLAIN_KEY.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** `path: message`, or just the message when the issue is about the whole input. */
export function issueText(issue: Issue): string {
  return issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`;
}

/** Collects issues while walking a document; keeps paths as segments until the end. */
export class IssueList {
  readonly items: { path: PathSegment[]; message: string }[] = [];

  add(path: readonly PathSegment[], message: string): void {
    this.items.push({ path: [...path], message });
  }

  get size(): number {
    return this.items.length;
  }
}
