/**
 * Progress on stderr for work that may take more than a second: shown only on
 * a terminal, only once a second has passed, and erased when done, so scripts
 * and --json output never see it.
 */
export interface Progress {
  tick: (done: number, total: number) => void;
  done: () => void;
}

export function progress(label: string): Progress {
  const start = Date.now();
  let shown = false;
  const live = process.stderr.isTTY === true;
  return {
    tick(done, total) {
      if (!live || Date.now() - start < 1000) return;
      shown = true;
      process.stderr.write(`\r${label} ${done}/${total}…`);
    },
    done() {
      if (shown) process.stderr.write('\r\u001b[2K');
    },
  };
}
