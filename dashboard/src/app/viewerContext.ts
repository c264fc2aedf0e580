import { createContext } from 'react';
import type { ViewerQuery as ViewerData } from '../gql/graphql';

export type Viewer = ViewerData['viewer'];
export const ViewerContext = createContext<Viewer | null>(null);
