" SPDX-License-Identifier: GPL-3.0-or-later
" Where sent mail (Fcc) and drafts are filed. The folder the user names (g:maildex_fcc,
" g:maildex_drafts), else the one the mail root already has, spelt as the sync tool made it: mbsync's
" `Sent` or `[Gmail]/Sent Mail`, Maildir++'s `.Sent`, offlineimap's `INBOX.Sent`, found among the
" folders (directories with a cur/) under the config's database.mail_root. Only when there is none,
" a new `Sent` or `Drafts`, the names IMAP servers give them: never a lowercase folder of our own.
" Reads directories only; runs no command.
let s:cpo_save = &cpo
set cpo&vim

" Names a folder's last part may have (after `/`, or `.` in Maildir++), best first.
let s:names = {'sent': ['sent', 'sent mail', 'sent items', 'sent messages'], 'drafts': ['drafts', 'draft']}
let s:new = {'sent': 'Sent', 'drafts': 'Drafts'}
let s:tags = {'sent': ['+sent', '-unread', '-inbox'], 'drafts': ['+draft', '-unread', '-inbox']}
let s:setting = {'sent': 'maildex_fcc', 'drafts': 'maildex_drafts'}
" How deep under the mail root folders are looked for (`[Gmail]/Sent Mail` is 2, `a/b/Sent` 3).
let s:depth = 3

" The argv of the `maildex insert` that files a message of KIND ('sent' or 'drafts'), [] for none;
" CONFIG is `config list` as maildex#config#with gives it.
function! maildex#folders#insert(kind, config) abort
  let l:name = s:setting[a:kind]
  if exists('g:' . l:name)
    " "FOLDER +tag -tag", or a list when the folder's name has spaces; '' or [] files nothing
    let l:value = get(g:, l:name)
    let l:words = type(l:value) == type([]) ? copy(l:value) : split(l:value)
    return empty(l:words) ? [] : ['insert', '--create-folder', '--folder=' . l:words[0]] + l:words[1:]
  endif
  let l:root = get(a:config, 'database.mail_root', get(a:config, 'database.path', ''))
  return ['insert', '--create-folder', '--folder=' . maildex#folders#find(l:root, a:kind)] + s:tags[a:kind]
endfunction

" The folder of KIND under ROOT, relative to it: of those with one of the names, the least deep
" (`Sent Messages` rather than `Archive/Sent`), then the best name, then the shortest path.
function! maildex#folders#find(root, kind) abort
  let l:best = ''
  let l:rank = [99, 99, 0]
  for l:folder in s:maildirs(a:root)
    let l:parts = split(substitute(l:folder, '^\.', '', ''), '[/.]')
    let l:rank_here = [len(l:parts), index(s:names[a:kind], tolower(l:parts[-1])), len(l:folder)]
    if l:rank_here[1] >= 0 && s:before(l:rank_here, l:rank)
      let [l:best, l:rank] = [l:folder, l:rank_here]
    endif
  endfor
  return l:best !=# '' ? l:best : s:new[a:kind]
endfunction

" Whether list A sorts before list B, element by element.
function! s:before(a, b) abort
  for l:i in range(len(a:a))
    if a:a[l:i] != a:b[l:i]
      return a:a[l:i] < a:b[l:i]
    endif
  endfor
  return 0
endfunction

function! s:maildirs(root) abort
  let l:found = []
  if a:root !=# '' && isdirectory(a:root)
    call s:walk(a:root, '', s:depth, l:found)
  endif
  return l:found
endfunction

function! s:walk(root, rel, depth, found) abort
  try
    let l:names = readdir(a:rel ==# '' ? a:root : a:root . '/' . a:rel)
  catch
    return
  endtry
  for l:name in l:names
    if index(['cur', 'new', 'tmp', '.maildex', '.notmuch'], l:name) >= 0
      continue
    endif
    let l:rel = a:rel ==# '' ? l:name : a:rel . '/' . l:name
    if isdirectory(a:root . '/' . l:rel . '/cur')
      call add(a:found, l:rel)
    endif
    if a:depth > 1 && isdirectory(a:root . '/' . l:rel)
      call s:walk(a:root, l:rel, a:depth - 1, a:found)
    endif
  endfor
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
