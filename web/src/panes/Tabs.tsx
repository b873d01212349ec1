/**
 * Tabs as the WAI-ARIA pattern has them: one tab stop, arrow keys (and Home/End) move between
 * tabs, the selected tab's panel follows.
 */
import { type KeyboardEvent, type ReactNode, useId, useRef } from 'react';

export interface Tab<K extends string> {
  key: K;
  label: string;
  panel: () => ReactNode;
}

export const Tabs = <K extends string>(props: {
  label: string;
  tabs: Array<Tab<K>>;
  selected: K;
  onSelect(key: K): void;
}) => {
  const base = useId();
  const refs = useRef(new Map<K, HTMLButtonElement>());
  const index = Math.max(
    0,
    props.tabs.findIndex((tab) => tab.key === props.selected)
  );
  const move = (to: number) => {
    const tab = props.tabs[(to + props.tabs.length) % props.tabs.length];
    if (tab === undefined) return;
    props.onSelect(tab.key);
    refs.current.get(tab.key)?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    // From the tab that has the focus (the selected one, unless focus was moved by other means).
    const focused = props.tabs.findIndex((tab) => refs.current.get(tab.key) === event.target);
    const from = focused === -1 ? index : focused;
    const keys: Record<string, number> = {
      ArrowRight: from + 1,
      ArrowLeft: from - 1,
      Home: 0,
      End: props.tabs.length - 1,
    };
    const to = keys[event.key];
    if (to === undefined) return;
    event.preventDefault();
    move(to);
  };
  const current = props.tabs[index];
  return (
    <div className="tabs">
      <div role="tablist" aria-label={props.label} onKeyDown={onKeyDown}>
        {props.tabs.map((tab) => {
          const selected = tab.key === current?.key;
          return (
            <button
              key={tab.key}
              ref={(element) => {
                if (element === null) refs.current.delete(tab.key);
                else refs.current.set(tab.key, element);
              }}
              type="button"
              role="tab"
              id={`${base}-tab-${tab.key}`}
              aria-selected={selected}
              aria-controls={`${base}-panel-${tab.key}`}
              tabIndex={selected ? 0 : -1}
              onClick={() => props.onSelect(tab.key)}
            >
              {tab.label}
            </button>
          );
        })}
      </div>
      {current !== undefined && (
        <div
          role="tabpanel"
          id={`${base}-panel-${current.key}`}
          aria-labelledby={`${base}-tab-${current.key}`}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: the WAI-ARIA tabs pattern: the panel is a tab stop
          tabIndex={0}
          className="tabpanel"
        >
          {current.panel()}
        </div>
      )}
    </div>
  );
};
