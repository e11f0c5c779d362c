/**
 * Each screen's own document title (WCAG 2.4.2): the route table's title of the address
 * shown, then the product's name ("Dashboard · gemba"); an address outside the table
 * answers the name alone. Screen readers announce it on every screen change, and tabs
 * and the browser's history tell the screens apart.
 */
import { useEffect } from 'react';
import { useLocation } from 'react-router';

import { ruleFor } from '@/lib/access/routes';

export const PRODUCT_NAME = 'gemba';

/** The title of the screen at `pathname`. */
export function pageTitle(pathname: string): string {
  const rule = ruleFor(pathname);
  return rule ? `${rule.title} · ${PRODUCT_NAME}` : PRODUCT_NAME;
}

/** Keeps `document.title` the shown screen's (set once the screen is drawn). */
export function usePageTitle(): void {
  const { pathname } = useLocation();
  useEffect(() => {
    document.title = pageTitle(pathname);
  }, [pathname]);
}
