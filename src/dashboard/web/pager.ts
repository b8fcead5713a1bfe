/** @module Previous / next buttons for a Page, with where we are. */
import { html } from 'htm/preact';
import type { VNode } from 'preact';
import type { Page } from './page.ts';

export function Pager({
  page,
  onPage,
}: {
  page: Page<unknown>;
  onPage: (n: number) => void;
}): VNode {
  return html`<nav class="pager" aria-label="Pages">
    <button type="button" disabled=${page.first} onClick=${() => onPage(page.number - 1)}>
      Previous
    </button>
    <span data-page=${page.number}
      >Page ${page.number + 1} of ${Math.max(1, page.totalPages)} (${page.totalElements})</span
    >
    <button type="button" disabled=${page.last} onClick=${() => onPage(page.number + 1)}>
      Next
    </button>
  </nav>`;
}
