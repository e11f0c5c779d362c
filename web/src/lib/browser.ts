/** Full-page moves to another host (kept in one object so tests can watch them). */
export const browser = {
  assign: (url: string) => window.location.assign(url),
  replace: (url: string) => window.location.replace(url),
};
