/**
 * Watches a config's files (the config and every local file it imports) for serve: each folder
 * that holds one is watched, so an editor that saves by writing a new file and renaming it over
 * the old is seen too, and a burst of changes (a save writes twice, a checkout touches many files)
 * becomes one call, `debounceMs` after the last.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** How long after a change to its files the config is read again: a save is often several writes. */
export const CONFIG_DEBOUNCE_MS = 200;

export interface ConfigWatch {
  /** Watches these files from now on, in the place of the ones before (a reload may import others). */
  follow(files: readonly string[]): void;
  close(): void;
}

export function watchConfigFiles(
  files: readonly string[],
  onChange: () => void,
  onError: (error: Error) => void,
  debounceMs = CONFIG_DEBOUNCE_MS,
): ConfigWatch {
  let watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const changed = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  };
  const follow = (next: readonly string[]) => {
    for (const watcher of watchers) watcher.close();
    watchers = [];
    const names = new Map<string, Set<string>>();
    for (const file of next) {
      const folder = dirname(file);
      names.set(folder, (names.get(folder) ?? new Set()).add(basename(file)));
    }
    for (const [folder, inFolder] of names) {
      try {
        const watcher = watch(folder, { persistent: false }, (_kind, name) => {
          // Some platforms give no name: any change in the folder may be one of the files.
          if (name === null || inFolder.has(name.toString())) changed();
        });
        watcher.on('error', onError);
        watchers.push(watcher);
      } catch (error) {
        onError(error as Error);
      }
    }
  };
  follow(files);
  return {
    follow,
    close() {
      closed = true;
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}
