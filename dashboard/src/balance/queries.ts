import { graphql } from '../gql';

export const BalanceQuery = graphql(`
  query BalancePage {
    balance { available { amount currency } pending { amount currency } }
    inTransit: settlements(first: 50, status: "in_transit") {
      edges { node { id amount gross fee currency status arrivalDate settledOn transactions } }
    }
    paid: settlements(first: 50, status: "paid") {
      edges { node { id amount gross fee currency status arrivalDate settledOn transactions paidAt } }
    }
  }
`);
