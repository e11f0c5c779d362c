/** Display formats of spec section 9. */

const two = (n: number) => String(n).padStart(2, '0');

/** The default date format, 'MM/DD/YY, HH:mm:ss', in the browser's time zone. */
export function formatDateTime(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getMonth() + 1)}/${two(d.getDate())}/${two(d.getFullYear() % 100)}, ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
