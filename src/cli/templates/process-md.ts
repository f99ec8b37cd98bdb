/**
 * The PROCESS.md `workboard new` writes: every kind of thing a first
 * process needs (inputs, an agent step with typed output and evidence, a
 * route list, an approval that can send the work back, finishes), each
 * explained in a YAML comment. It validates and publishes as written.
 */
export function processTemplate(name: string): string {
  return `---
# A process: what one run of it does, from its inputs to a finish.
# Check it:    workboard validate processes/${name}
# Publish it:  workboard publish processes/${name} --role approver=<a group in WORK.md>
# Comments and key order do not change the content hash; values do.
name: ${name}
description: An agent drafts a short text about a topic; a person approves it or sends it back.

# What a run starts with: field name -> type (string, number, boolean, date,
# datetime, list, object, person), or an object with type and description.
inputs:
  topic: string
  words: { type: number, description: About how long the text should be }

steps:
  # An agent step: an agent claims it, does the work, and submits output of
  # exactly these fields, with the evidence named here (file or link).
  - id: draft
    agent: |
      Write a text on the topic, about as many words long as the input words asks.
      Link one source you used as evidence.
    output:
      text: string
      sources: number
    evidence: [link]
    # A route list: the agent picks one target and gives its reason.
    next:
      - { to: approve, when: The text is ready for review }
      - { to: dropped, when: Nothing trustworthy can be written on the topic }

  # An approval: a person holding the role decides. Rejecting sends the run
  # back to on_reject with the person's note; approving follows next.
  # The role maps to a group of WORK.md when the process is published.
  - id: approve
    person: approver
    approve: Approve the text when it is accurate and reads well.
    due: 2d
    on_reject: draft
    next: published

  # Finishes end the run with an outcome.
  - id: published
    finish: published

  - id: dropped
    finish: dropped
---

# ${name}

What this process is for, in a few sentences for the people and agents
who work it. Everything below the frontmatter is shown to them as written.
`;
}
