import { Page } from './ui';

export default function NotFound() {
  return <Page titleId="shell.notFound"><p /></Page>;
}
