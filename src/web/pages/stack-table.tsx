/**
 * The web app's one kind of table: a row heading, then a cell per column,
 * each cell labelled with its column so that on a phone, where app.css
 * stacks a row's cells (`table.stack`), every value still says what it is.
 */
import type { ComponentChildren } from 'preact';

/** A column: its heading, and the shorter label a phone shows beside each cell when the heading is long. */
export interface Column {
  head: string;
  label?: string;
}

/** A row: a key unique in the table, its heading cell, and one cell for each column after the first. */
export interface Row {
  key: string;
  head: ComponentChildren;
  cells: ComponentChildren[];
}

export function StackTable({ columns, rows, caption, captionShown = false, kind }: { columns: Column[]; rows: Row[]; caption?: string; captionShown?: boolean; kind?: string }) {
  return (
    <table class={kind ? `${kind} stack` : 'stack'}>
      {caption ? <caption class={captionShown ? undefined : 'visually-hidden'}>{caption}</caption> : null}
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col" key={c.head}>
              {c.head}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key}>
            <th scope="row">{r.head}</th>
            {r.cells.map((cell, i) => {
              const c = columns[i + 1];
              return (
                <td data-label={c?.label ?? c?.head} key={i}>
                  {cell}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
