import{D as e,E as t,F as n,I as r,S as i,x as a,y as o}from"./index-y5URSzwJ.js";var s=r(n(),1),c=e(),l={ar:`العربية`,en:`English`,tr:`Türkçe`};function u({titleId:e,children:n}){let r=t(),{lang:o,setLang:u}=a(),d=r.formatMessage({id:e});return(0,s.useEffect)(()=>{document.title=`${d} · Qafila`},[d]),(0,c.jsx)(`main`,{className:`flex min-h-screen items-start justify-center bg-slate-50 px-4 pt-16 text-slate-900`,children:(0,c.jsxs)(`div`,{className:`w-full max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm`,children:[(0,c.jsx)(`p`,{className:`mb-2 text-lg font-bold text-emerald-800`,children:`Qafila`}),(0,c.jsx)(`h1`,{className:`mb-4 text-2xl font-semibold`,children:d}),n,(0,c.jsx)(`ul`,{className:`mt-6 flex gap-3 text-sm`,"aria-label":r.formatMessage({id:`shell.language`}),children:i.map(e=>(0,c.jsx)(`li`,{children:(0,c.jsx)(`button`,{type:`button`,lang:e,"aria-pressed":e===o,onClick:()=>u(e),className:`underline ${e===o?`font-semibold text-emerald-900`:`text-slate-600`}`,children:l[e]})},e))})]})})}var d=o(`
  mutation OtpRequest($input: OtpRequestInput!) {
    otpRequest(input: $input) { requestId expiresIn userErrors { code message field } }
  }
`),f=o(`
  mutation OtpVerify($input: OtpVerifyInput!) {
    otpVerify(input: $input) { csrfToken merchantId twoFactor challengeId userErrors { code message field } }
  }
`),p=o(`
  mutation TwoFactorVerify($input: TwoFactorVerifyInput!) {
    twoFactorVerify(input: $input) { csrfToken merchantId twoFactor userErrors { code message field } }
  }
`),m=o(`
  mutation TeamInviteAccept($input: TeamInviteAcceptInput!) {
    teamInviteAccept(input: $input) { member { id email roles } merchant { id name } userErrors { code message field } }
  }
`);export{u as a,p as i,f as n,m as r,d as t};