import { Link } from 'react-router';

export default function NotFoundScreen() {
  return (
    <main className="error-screen">
      <h1>Page not found</h1>
      <p>
        <Link to="/">Go to the start page</Link>
      </p>
    </main>
  );
}
