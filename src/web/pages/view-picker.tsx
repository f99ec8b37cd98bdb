/**
 * The saved views picker on Runs and My work (docs/operators.md "Saved
 * views"): one link per view of WORK.md, the first the default, and one for
 * the page without a view. Nothing when the board declares no views.
 */
export interface PickerProps {
  /** Where the links go: /runs or /work. */
  action: string;
  views: { id: string; title: string }[];
  /** The view shown, or null for the page without one. */
  current: string | null;
  /** The words of the page without a view: "All runs", "All my work". */
  none: string;
}

export function ViewPicker(p: PickerProps) {
  if (p.views.length === 0) return null;
  const link = (id: string | null, text: string) => (
    <li key={id ?? ''}>
      <a href={`${p.action}?view=${encodeURIComponent(id ?? 'all')}`} aria-current={p.current === id ? 'page' : undefined}>
        {text}
      </a>
    </li>
  );
  return (
    <nav class="view-picker" aria-label="Saved views">
      <span class="muted">Views:</span>
      <ul>
        {p.views.map((v) => link(v.id, v.title))}
        {link(null, p.none)}
      </ul>
    </nav>
  );
}
