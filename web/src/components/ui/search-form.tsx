import { useState } from 'react';

/** A search box applied on Enter or the Search button (one call per search, not per key). */
export function SearchForm({ label, value, onSearch }: { label: string; value: string; onSearch: (text: string) => void }) {
  const [text, setText] = useState(value);
  const [shown, setShown] = useState(value);
  // The address changed the search (back button, a cleared filter): show it.
  if (value !== shown) {
    setShown(value);
    setText(value);
  }
  return (
    <form
      role="search"
      className="search-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(text);
      }}
    >
      <label>
        {label}
        <input type="search" value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}
